package main

import (
	"fmt"
	"log/slog"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/adapters/websocket"
	"github.com/iggygo/iggy/wire"
)

// wsListener is the WebSocket part of listeners (config.md [websocket]).
// The library manages its own read and write buffers, so the optional
// buffer-size keys are accepted but not applied.
type wsListener struct{ ws *websocket.Server }

func (l *wsListener) startWebSocket(cfg *config.Config, hub *transport.Hub, log *slog.Logger) error {
	w := cfg.WebSocket
	if !w.Enabled {
		return nil
	}
	tlsCfg, err := listenerTLS("websocket", w.TLS, log)
	if err != nil {
		return err
	}
	if w.AcceptUnmaskedFrames {
		log.Warn("websocket.accept_unmasked_frames is not supported: client frames must be masked")
	}
	frameMax := min(cfg.MessageBus.MaxMessageSize, wire.FrameSizeMax)
	if w.MaxMessageSize != nil {
		frameMax = min(frameMax, *w.MaxMessageSize)
	}
	opts := websocket.Options{FrameSizeMax: uint32(frameMax), HandshakeTimeout: cfg.MessageBus.HandshakeGrace}
	s, err := websocket.Listen(w.Address, tlsCfg, hub, opts, log)
	if err != nil {
		return err
	}
	l.ws = s
	go s.Serve()
	fmt.Printf("websocket listening on %s\n", s.Addr())
	log.Info(fmt.Sprintf("websocket listening on %s", s.Addr()))
	return nil
}

func (l *wsListener) closeWebSocket() {
	if l.ws != nil {
		_ = l.ws.Close()
	}
}
