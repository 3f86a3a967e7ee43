package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/selfsigned"
)

// listenerTLS is the TLS of a TCP or WebSocket listener: the configured PEM
// files, or, with self_signed while the certificate file does not exist, an
// ephemeral certificate made in memory (and said so in the log).
func listenerTLS(name string, t config.TLS, log *slog.Logger) (*tls.Config, error) {
	if !t.Enabled {
		return nil, nil
	}
	_, statErr := os.Stat(t.CertFile)
	if t.SelfSigned && errors.Is(statErr, fs.ErrNotExist) {
		cert, err := selfsigned.Certificate()
		if err != nil {
			return nil, fmt.Errorf("%s tls: %w", name, err)
		}
		log.Info(name+" tls: generated an ephemeral self-signed certificate", "hosts", selfsigned.Hosts)
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
	}
	cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("%s tls: %w", name, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
