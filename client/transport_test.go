package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/quic"
	"github.com/iggygo/iggy/adapters/selfsigned"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/adapters/transport/transporttest"
	"github.com/iggygo/iggy/adapters/websocket"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// echoNode answers every frame on the hub with an empty status-0 reply that
// echoes the request, standing in for the node.
func echoNode(t *testing.T, hub *transport.Hub) {
	transporttest.Serve(t, hub, func(in node.Input) {
		f, ok := in.(node.ClientFrame)
		if !ok {
			return
		}
		h, _ := wire.DecodeRequestHeader(f.Frame)
		reply := make([]byte, wire.HeaderSize)
		wire.ReplyTo(h).Put(reply, 0)
		hub.Deliver(bus.Reply{Conn: f.Conn, Parts: [][]byte{reply}})
	})
}

// The client's WebSocket and QUIC transports carry requests and replies,
// several in a row on one connection.
// covers TRAN-2, TRAN-3
func TestPingOverWebSocketAndQUIC(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	hub := transport.NewHub()
	echoNode(t, hub)
	wsSrv, err := websocket.Listen("127.0.0.1:0", nil, hub, websocket.Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	go wsSrv.Serve()
	t.Cleanup(func() { _ = wsSrv.Close() })
	cert, err := selfsigned.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	qSrv, err := quic.Listen("127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}}, hub, quic.Options{StreamsConcurrentMax: 1}, log)
	if err != nil {
		t.Fatal(err)
	}
	go qSrv.Serve()
	t.Cleanup(func() { _ = qSrv.Close() })
	t.Cleanup(hub.CloseAll)

	for _, tc := range []struct{ transport, addr string }{
		{TransportWebSocket, wsSrv.Addr().String()},
		{TransportQUIC, qSrv.Addr().String()},
	} {
		c, err := Dial(context.Background(), tc.addr, Options{Transport: tc.transport, RequestTimeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("%s: dial: %v", tc.transport, err)
		}
		for i := range 20 {
			if err := c.Ping(); err != nil {
				t.Fatalf("%s: ping %d: %v", tc.transport, i, err)
			}
		}
		if c.LocalAddr() == nil {
			t.Fatalf("%s: no local address", tc.transport)
		}
		if err := c.Close(); err != nil {
			t.Logf("%s: close: %v", tc.transport, err)
		}
	}
	if _, err := Dial(context.Background(), "127.0.0.1:1", Options{Transport: "carrier-pigeon"}); err == nil {
		t.Fatal("an unknown transport dialled")
	}
}

// WSS, and QUIC with certificate verification, work with Options.TLS: the
// server name comes from the address, which the self-signed certificate covers.
// covers TRAN-2, TRAN-3
func TestVerifiedTLSOverWebSocketAndQUIC(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	hub := transport.NewHub()
	echoNode(t, hub)
	cert, err := selfsigned.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}}
	wsSrv, err := websocket.Listen("127.0.0.1:0", serverTLS, hub, websocket.Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	go wsSrv.Serve()
	t.Cleanup(func() { _ = wsSrv.Close() })
	qSrv, err := quic.Listen("127.0.0.1:0", serverTLS, hub, quic.Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	go qSrv.Serve()
	t.Cleanup(func() { _ = qSrv.Close() })
	t.Cleanup(hub.CloseAll)

	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	for _, tc := range []struct{ transport, addr string }{
		{TransportWebSocket, wsSrv.Addr().String()},
		{TransportQUIC, qSrv.Addr().String()},
	} {
		c, err := Dial(context.Background(), tc.addr, Options{Transport: tc.transport, TLS: &tls.Config{RootCAs: roots}})
		if err != nil {
			t.Fatalf("%s: dial: %v", tc.transport, err)
		}
		if err := c.Ping(); err != nil {
			t.Fatalf("%s: ping: %v", tc.transport, err)
		}
		_ = c.Close()
		untrusted := &tls.Config{RootCAs: x509.NewCertPool()}
		if c, err := Dial(context.Background(), tc.addr, Options{Transport: tc.transport, TLS: untrusted}); err == nil {
			c.Close()
			t.Fatalf("%s: dialled a server whose certificate is not trusted", tc.transport)
		}
	}
}
