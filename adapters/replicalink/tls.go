package replicalink

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/iggygo/iggy/adapters/selfsigned"
)

// NewTLS builds cluster.tls's two sides: TLS 1.3 only, ALPN iggy-replica.
// self_signed: an ephemeral certificate, and any peer certificate is
// taken; the PSK handshake, bound to the TLS session by its exporter,
// authenticates the peer. Otherwise the node's certificate from certFile
// and keyFile, and peers verified against caFile: a dialled peer by its
// roster address (IP SANs for IP rosters), a dialling one by its client
// certificate.
func NewTLS(selfSigned bool, certFile, keyFile, caFile string) (*TLSConfig, error) {
	base := &tls.Config{MinVersion: tls.VersionTLS13, NextProtos: []string{ALPN}}
	if selfSigned {
		cert, err := selfsigned.Certificate()
		if err != nil {
			return nil, fmt.Errorf("cluster.tls: %w", err)
		}
		srv, cli := base.Clone(), base.Clone()
		srv.Certificates = []tls.Certificate{cert}
		cli.InsecureSkipVerify = true // self_signed: the PSK authenticates
		return &TLSConfig{Server: srv, Client: cli}, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("cluster.tls: cert_file %s, key_file %s: %w", certFile, keyFile, err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("cluster.tls: ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("cluster.tls: ca_file %s holds no PEM certificate", caFile)
	}
	srv, cli := base.Clone(), base.Clone()
	srv.Certificates, srv.ClientCAs, srv.ClientAuth = []tls.Certificate{cert}, pool, tls.RequireAndVerifyClientCert
	cli.Certificates, cli.RootCAs = []tls.Certificate{cert}, pool
	return &TLSConfig{Server: srv, Client: cli}, nil
}
