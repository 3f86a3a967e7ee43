package main

import (
	"fmt"
	"log/slog"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/httpapi"
	"github.com/iggygo/iggy/adapters/transport"
)

// httpListener is the HTTP REST part of listeners (config.md [http]): a
// client of the node through the hub, like every other transport.
type httpListener struct{ http *httpapi.Server }

func (l *httpListener) startHTTP(cfg *config.Config, hub *transport.Hub, log *slog.Logger) error {
	if !cfg.HTTP.Enabled {
		return nil
	}
	s, err := httpapi.New(httpapi.Options{HTTP: cfg.HTTP, Log: log, DataDir: cfg.System.Path, Grace: cfg.MessageBus.HandshakeGrace}, hub)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	if err := s.Listen(cfg.HTTP.Address); err != nil {
		return err
	}
	l.http = s
	go s.Serve()
	fmt.Printf("http listening on %s\n", s.Addr())
	log.Info(fmt.Sprintf("http listening on %s", s.Addr()))
	return nil
}

func (l *httpListener) closeHTTP() {
	if l.http != nil {
		_ = l.http.Close()
	}
}
