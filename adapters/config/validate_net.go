package config

import (
	"encoding/base64"
	"math"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// QUIC bounds (config.md §4 [quic]).
const (
	quicMTUMin       = 1200
	quicMTUMax       = 65535
	quicVarIntMax    = uint64(1)<<62 - 1
	hostnameBytesMax = 253
)

// corsMethods are the standard HTTP methods a CORS allow-list may name.
var corsMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

var jwtAlgorithms = []string{"HS256", "HS384", "HS512"}

func trimmed(s string) string { return strings.TrimSpace(s) }

func validateTCP(c *checker, t *TCP) {
	if !t.Enabled {
		return
	}
	c.check(validListenAddress(t.Address), "tcp.address %q must be HOST:PORT", t.Address)
	c.check(!t.TLS.Enabled || t.TLS.SelfSigned || t.TLS.CertFile != "" && t.TLS.KeyFile != "",
		"tcp.tls needs cert_file and key_file when self_signed = false")
}

func validateQUIC(c *checker, q *QUIC) {
	if !q.Enabled {
		return
	}
	c.check(validListenAddress(q.Address), "quic.address %q must be HOST:PORT", q.Address)
	c.check(q.MaxConcurrentBidiStreams >= 1 && q.MaxConcurrentBidiStreams <= math.MaxUint32, "quic.max_concurrent_bidi_streams must be 1..=%d", uint32(math.MaxUint32))
	c.check(q.InitialMTU >= quicMTUMin && q.InitialMTU <= quicMTUMax, "quic.initial_mtu must be %d..=%d bytes", quicMTUMin, quicMTUMax)
	c.check(q.SendWindow <= quicVarIntMax, "quic.send_window must be at most 2^62-1 bytes")
	c.check(q.ReceiveWindow <= math.MaxUint32, "quic.receive_window must fit 32 bits")
	c.check(q.StreamReceiveWindow > 0 && q.StreamReceiveWindow <= math.MaxUint32 && q.StreamReceiveWindow <= q.ReceiveWindow,
		"quic.stream_receive_window must be non-zero, fit 32 bits and be at most quic.receive_window")
	c.check(q.Certificate.SelfSigned || q.Certificate.CertFile != "" && q.Certificate.KeyFile != "",
		"quic.certificate needs cert_file and key_file when self_signed = false")
}

func validateHTTP(c *checker, h *HTTP) {
	if !h.Enabled {
		return
	}
	c.check(validListenAddress(h.Address), "http.address %q must be HOST:PORT", h.Address)
	c.check(h.MaxRequestSize > 0, "http.max_request_size must be non-zero")
	c.check(!h.TLS.Enabled || h.TLS.CertFile != "" && h.TLS.KeyFile != "", "http.tls needs cert_file and key_file when enabled")
	c.check(!h.Metrics.Enabled || strings.HasPrefix(h.Metrics.Endpoint, "/"), "http.metrics.endpoint must start with /")
	validateCORS(c, &h.CORS)
	validateJWT(c, &h.JWT)
}

func validateCORS(c *checker, cors *CORS) {
	for _, m := range cors.AllowedMethods {
		if trimmed(m) == "" {
			continue
		}
		c.check(containsFold(corsMethods, trimmed(m)), "http.cors.allowed_methods: %q is not a standard HTTP method", m)
	}
	for i, o := range cors.AllowedOrigins {
		c.check(i == 0 || trimmed(o) != "*", "http.cors.allowed_origins: \"*\" is only valid as the first entry")
	}
	if cors.AllowCredentials {
		c.check(!hasWildcard(cors.AllowedOrigins) && !hasWildcard(cors.AllowedHeaders) && !hasWildcard(cors.ExposedHeaders),
			"http.cors.allow_credentials = true forbids \"*\" in allowed_origins, allowed_headers and exposed_headers")
	}
}

func validateJWT(c *checker, j *JWT) {
	c.check(slices.Contains(jwtAlgorithms, j.Algorithm),
		"http.jwt.algorithm %q must be HS256, HS384 or HS512", j.Algorithm)
	c.check(j.AccessTokenExpiry.Kind != ExpiryServerDefault, "http.jwt.access_token_expiry must not be server_default")
	if j.UseBase64Secret {
		c.check(validBase64(j.EncodingSecret) && validBase64(j.DecodingSecret),
			"http.jwt secrets must be base64 when use_base64_secret = true")
	}
	if j.EncodingSecret != "" && j.DecodingSecret != "" && j.EncodingSecret != j.DecodingSecret {
		c.warn("http.jwt.encoding_secret and http.jwt.decoding_secret differ")
	}
	for i, t := range j.TrustedIssuers {
		c.check(trimmed(t.Issuer) != "", "http.jwt.trusted_issuers[%d].issuer must not be empty", i)
		c.check(trimmed(t.Audience) != "", "http.jwt.trusted_issuers[%d].audience must not be empty", i)
		c.check(trimmed(t.JWKSURL) != "", "http.jwt.trusted_issuers[%d].jwks_url must not be empty", i)
		// CONF-12: the issuer acts as a named account.
		c.check(trimmed(t.Username) != "", "http.jwt.trusted_issuers[%d].username must not be empty", i)
	}
}

func validBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

func validateWebSocket(c *checker, w *WebSocket, busMax uint64) {
	if !w.Enabled {
		return
	}
	c.check(validListenAddress(w.Address), "websocket.address %q must be HOST:PORT", w.Address)
	for _, s := range []struct {
		name string
		v    *uint64
	}{
		{"read_buffer_size", w.ReadBufferSize}, {"write_buffer_size", w.WriteBufferSize},
		{"max_write_buffer_size", w.MaxWriteBufferSize}, {"max_message_size", w.MaxMessageSize},
		{"max_frame_size", w.MaxFrameSize},
	} {
		c.check(s.v == nil || *s.v > 0, "websocket.%s must be non-zero when set", s.name)
	}
	message := valueOr(w.MaxMessageSize, WebSocketDefaultMaxMessageSize)
	frame := valueOr(w.MaxFrameSize, WebSocketDefaultMaxFrameSize)
	c.check(frame <= message, "websocket.max_frame_size must be at most websocket.max_message_size")
	c.check(message <= busMax, "websocket.max_message_size must be at most message_bus.max_message_size")
	if w.MaxWriteBufferSize != nil {
		c.check(*w.MaxWriteBufferSize > valueOr(w.WriteBufferSize, WebSocketDefaultBufferSize),
			"websocket.max_write_buffer_size must exceed websocket.write_buffer_size")
	}
	c.check(!w.TLS.Enabled || w.TLS.SelfSigned || w.TLS.CertFile != "" && w.TLS.KeyFile != "",
		"websocket.tls needs cert_file and key_file when self_signed = false")
}

func valueOr(v *uint64, fallback uint64) uint64 {
	if v == nil {
		return fallback
	}
	return *v
}

// validateAdvertised refuses a standalone wildcard bind without an
// advertised address (CONF-13); cluster nodes publish their roster address.
func validateAdvertised(c *checker, cfg *Config) {
	adv := cfg.Node.AdvertisedAddress
	c.check(adv == "" || ValidHost(adv), "node.advertised_address %q must be an IP or a hostname without port", adv)
	if cfg.Cluster.Enabled || adv != "" {
		return
	}
	for _, l := range cfg.listeners() {
		c.check(!l.enabled || !IsWildcardAddress(l.address),
			"%s.address %s binds a wildcard address; set node.advertised_address (IGGY_NODE_ADVERTISED_ADDRESS) to the host clients dial",
			l.name, l.address)
	}
}

type listener struct {
	name    string
	enabled bool
	address string
}

func (cfg *Config) listeners() []listener {
	return []listener{
		{"tcp", cfg.TCP.Enabled, cfg.TCP.Address},
		{"quic", cfg.QUIC.Enabled, cfg.QUIC.Address},
		{"http", cfg.HTTP.Enabled, cfg.HTTP.Address},
		{"websocket", cfg.WebSocket.Enabled, cfg.WebSocket.Address},
	}
}

// IsWildcardAddress reports whether a HOST:PORT binds every interface.
func IsWildcardAddress(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if host == "" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsUnspecified()
}

func validListenAddress(address string) bool {
	_, port, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}

// ValidHost reports whether s is an IP address or an RFC 1123 hostname
// (no port, no trailing dot).
func ValidHost(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	if s == "" || len(s) > hostnameBytesMax || strings.HasSuffix(s, ".") {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if !validHostLabel(label) {
			return false
		}
	}
	return true
}

func validHostLabel(label string) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for _, r := range label {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func containsFold(list []string, s string) bool {
	for _, item := range list {
		if strings.EqualFold(item, s) {
			return true
		}
	}
	return false
}

func hasWildcard(list []string) bool {
	for _, item := range list {
		if trimmed(item) == "*" {
			return true
		}
	}
	return false
}
