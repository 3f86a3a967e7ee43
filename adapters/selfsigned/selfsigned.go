// Package selfsigned makes an ephemeral TLS certificate in memory, for a
// listener configured to use one (config.md [quic.certificate] self_signed,
// [websocket.tls] self_signed). Nothing is written to disk: a restart makes
// a new key, which is what "ephemeral" means for these keys.
package selfsigned

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

// validity is how long the certificate is valid. A process rarely lives
// that long, and the SDKs do not verify a self-signed certificate anyway.
const validity = 365 * 24 * time.Hour

// serialBitsMax bounds the random serial number (RFC 5280 allows 20 octets).
const serialBitsMax = 128

// Hosts are the names the certificate covers: the loopback names the
// reference server uses for its generated certificate ("localhost").
var Hosts = []string{"localhost", "127.0.0.1", "::1"}

// Certificate returns a fresh ECDSA P-256 certificate for Hosts.
func Certificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), serialBitsMax))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: Hosts[0], Organization: []string{"iggy-server (self-signed)"}},
		NotBefore:             now.Add(-time.Hour), // tolerate a client clock slightly behind
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: sign: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: parse: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}
