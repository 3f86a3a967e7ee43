package client

import (
	"context"
	"fmt"
	"net"
	"net/http"

	ws "github.com/coder/websocket"
)

// dialWebSocket connects over WebSocket (WSS when opts.TLS is set). The
// connection is presented as a net.Conn whose every Write is one binary
// message, so the one Write of a request frame is one message, as the
// protocol wants (protocol-framing.md 1.1); reads see the reply messages as
// one byte stream, which readFrame cuts as on TCP.
func dialWebSocket(ctx context.Context, addr string, opts Options) (net.Conn, error) {
	url := "ws://" + addr + "/"
	var dopts ws.DialOptions
	if opts.TLS != nil {
		url = "wss://" + addr + "/"
		dopts.HTTPClient = &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfigFor(opts.TLS, addr)}}
	}
	c, _, err := ws.Dial(ctx, url, &dopts)
	if err != nil {
		return nil, fmt.Errorf("iggy: websocket dial %s: %w", url, err)
	}
	// NetConn lifts the library's message size limit; readFrame enforces
	// the protocol's frame cap instead.
	return ws.NetConn(context.Background(), c, ws.MessageBinary), nil
}
