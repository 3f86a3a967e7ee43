package config

import "time"

// TCP configures the binary-protocol TCP listener.
type TCP struct {
	Enabled bool   `koanf:"enabled"`
	Address string `koanf:"address"`
	TLS     TLS    `koanf:"tls"`
}

// TLS configures TLS on a listener.
type TLS struct {
	Enabled bool `koanf:"enabled"`
	// SelfSigned generates an ephemeral certificate only while CertFile does
	// not exist; existing PEM files win.
	SelfSigned bool   `koanf:"self_signed"`
	CertFile   string `koanf:"cert_file"`
	KeyFile    string `koanf:"key_file"`
}

// QUIC configures the QUIC listener.
type QUIC struct {
	Enabled                  bool            `koanf:"enabled"`
	Address                  string          `koanf:"address"`
	MaxConcurrentBidiStreams uint64          `koanf:"max_concurrent_bidi_streams"`
	InitialMTU               uint64          `koanf:"initial_mtu" conf:"size"`
	SendWindow               uint64          `koanf:"send_window" conf:"size"`
	ReceiveWindow            uint64          `koanf:"receive_window" conf:"size"`
	StreamReceiveWindow      uint64          `koanf:"stream_receive_window" conf:"size"`
	KeepAliveInterval        time.Duration   `koanf:"keep_alive_interval"`
	MaxIdleTimeout           time.Duration   `koanf:"max_idle_timeout"`
	Certificate              QUICCertificate `koanf:"certificate"`
}

// QUICCertificate configures the QUIC certificate.
type QUICCertificate struct {
	// SelfSigned always generates an ephemeral certificate, ignoring files.
	SelfSigned bool   `koanf:"self_signed"`
	CertFile   string `koanf:"cert_file"`
	KeyFile    string `koanf:"key_file"`
}

// HTTP configures the REST listener.
type HTTP struct {
	Enabled        bool        `koanf:"enabled"`
	Address        string      `koanf:"address"`
	MaxRequestSize uint64      `koanf:"max_request_size" conf:"size"`
	WebUI          bool        `koanf:"web_ui"`
	CORS           CORS        `koanf:"cors"`
	JWT            JWT         `koanf:"jwt"`
	Metrics        HTTPMetrics `koanf:"metrics"`
	TLS            HTTPTLS     `koanf:"tls"`
}

// CORS configures the CORS layer.
type CORS struct {
	Enabled             bool     `koanf:"enabled"`
	AllowedMethods      []string `koanf:"allowed_methods"`
	AllowedOrigins      []string `koanf:"allowed_origins"`
	AllowedHeaders      []string `koanf:"allowed_headers"`
	ExposedHeaders      []string `koanf:"exposed_headers"`
	AllowCredentials    bool     `koanf:"allow_credentials"`
	AllowPrivateNetwork bool     `koanf:"allow_private_network"`
}

// JWT configures self-issued and trusted external bearer tokens.
type JWT struct {
	Algorithm         string          `koanf:"algorithm"`
	Issuer            string          `koanf:"issuer"`
	Audience          string          `koanf:"audience"`
	ValidIssuers      []string        `koanf:"valid_issuers"`
	ValidAudiences    []string        `koanf:"valid_audiences"`
	AccessTokenExpiry Expiry          `koanf:"access_token_expiry"`
	ClockSkew         time.Duration   `koanf:"clock_skew"`
	NotBefore         time.Duration   `koanf:"not_before"`
	EncodingSecret    string          `koanf:"encoding_secret" conf:"secret"`
	DecodingSecret    string          `koanf:"decoding_secret" conf:"secret"`
	UseBase64Secret   bool            `koanf:"use_base64_secret"`
	TrustedIssuers    []TrustedIssuer `koanf:"trusted_issuers" conf:"optional"`
}

// TrustedIssuer is an external token issuer whose tokens act as Username.
type TrustedIssuer struct {
	Issuer   string `koanf:"issuer"`
	Audience string `koanf:"audience"`
	JWKSURL  string `koanf:"jwks_url"`
	Username string `koanf:"username"`
}

// HTTPMetrics configures the Prometheus scrape route.
type HTTPMetrics struct {
	Enabled  bool   `koanf:"enabled"`
	Endpoint string `koanf:"endpoint"`
}

// HTTPTLS configures HTTPS.
type HTTPTLS struct {
	Enabled  bool   `koanf:"enabled"`
	CertFile string `koanf:"cert_file"`
	KeyFile  string `koanf:"key_file"`
}

// WebSocket configures the WebSocket listener. Nil sizes are unset (the
// library defaults of WebSocketDefault* apply).
type WebSocket struct {
	Enabled              bool    `koanf:"enabled"`
	Address              string  `koanf:"address"`
	ReadBufferSize       *uint64 `koanf:"read_buffer_size" conf:"size,unlimited,optional"`
	WriteBufferSize      *uint64 `koanf:"write_buffer_size" conf:"size,unlimited,optional"`
	MaxWriteBufferSize   *uint64 `koanf:"max_write_buffer_size" conf:"size,unlimited,optional"`
	MaxMessageSize       *uint64 `koanf:"max_message_size" conf:"size,unlimited,optional"`
	MaxFrameSize         *uint64 `koanf:"max_frame_size" conf:"size,unlimited,optional"`
	AcceptUnmaskedFrames bool    `koanf:"accept_unmasked_frames"`
	TLS                  TLS     `koanf:"tls"`
}

// Library defaults of the optional WebSocket sizes (config.md §4).
const (
	WebSocketDefaultBufferSize     uint64 = 128 << 10
	WebSocketDefaultMaxMessageSize uint64 = 64 << 20
	WebSocketDefaultMaxFrameSize   uint64 = 16 << 20
)
