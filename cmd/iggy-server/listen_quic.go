package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/quic"
	"github.com/iggygo/iggy/adapters/selfsigned"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/wire"
)

// quicListener is the QUIC part of listeners (config.md [quic]). send_window
// has no quic-go counterpart (quic-go follows the peer's flow control), so
// it is accepted but not applied.
type quicListener struct{ quic *quic.Server }

func (l *quicListener) startQUIC(cfg *config.Config, hub *transport.Hub, log *slog.Logger) error {
	q := cfg.QUIC
	if !q.Enabled {
		return nil
	}
	tlsCfg, err := quicTLS(q.Certificate, log)
	if err != nil {
		return err
	}
	opts := quic.Options{
		FrameSizeMax:             uint32(min(cfg.MessageBus.MaxMessageSize, wire.FrameSizeMax)),
		StreamsConcurrentMax:     q.MaxConcurrentBidiStreams,
		InitialPacketSizeBytes:   uint16(q.InitialMTU), // validated to 1200..=65535
		ReceiveWindowBytes:       q.ReceiveWindow,
		StreamReceiveWindowBytes: q.StreamReceiveWindow,
		KeepAlivePeriod:          q.KeepAliveInterval,
		IdleTimeout:              q.MaxIdleTimeout,
		HandshakeTimeout:         cfg.MessageBus.HandshakeGrace,
	}
	s, err := quic.Listen(q.Address, tlsCfg, hub, opts, log)
	if err != nil {
		return err
	}
	l.quic = s
	go s.Serve()
	fmt.Printf("quic listening on %s\n", s.Addr())
	log.Info(fmt.Sprintf("quic listening on %s", s.Addr()))
	return nil
}

func (l *quicListener) closeQUIC() {
	if l.quic != nil {
		_ = l.quic.Close()
	}
}

// quicTLS follows [quic.certificate]: self_signed always generates an
// ephemeral certificate, ignoring any files; otherwise the files are loaded.
func quicTLS(c config.QUICCertificate, log *slog.Logger) (*tls.Config, error) {
	if c.SelfSigned || c.CertFile == "" {
		cert, err := selfsigned.Certificate()
		if err != nil {
			return nil, fmt.Errorf("quic certificate: %w", err)
		}
		log.Info("quic: generated an ephemeral self-signed certificate", "hosts", selfsigned.Hosts)
		return &tls.Config{Certificates: []tls.Certificate{cert}}, nil
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("quic certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}}, nil
}
