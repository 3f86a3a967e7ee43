package client

import (
	"bytes"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
)

// The Go SDK's request id rules (protocol-framing.md 4.5): Register 0,
// GetStreams 1, SendMessages 1, CreateStream 1 (consumed), Ping 2, Logout 2
// (consumed); then a fresh client id and the counter back at 1.
func TestRequestIDsFollowTheSDK(t *testing.T) {
	s := newFakeServer(t, okHandler)
	c := s.dial(t)
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	firstID := c.ClientID()
	steps := []struct {
		code wire.Command
		body []byte
	}{
		{wire.CmdGetStreams, nil},
		{wire.CmdSendMessages, nil},
		{wire.CmdCreateStream, []byte{1, 'a'}},
		{wire.CmdPing, nil},
	}
	for _, st := range steps {
		if _, err := c.call(st.code, st.body); err != nil {
			t.Fatalf("code %d: %v", st.code, err)
		}
	}
	if err := c.Logout(); err != nil {
		t.Fatal(err)
	}
	if c.ClientID() == firstID || c.ClientID().IsZero() || c.Session() != 0 {
		t.Fatalf("after logout: client %v session %d", c.ClientID(), c.Session())
	}
	if _, err := c.call(wire.CmdPing, nil); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		op      wire.Operation
		request uint64
		session uint64
		nr      wire.Command
	}{
		{wire.OpRegister, 0, 0, 0},
		{wire.OpNonReplicated, 1, fakeSession, wire.CmdGetStreams},
		{wire.OpSendMessages, 1, fakeSession, 0},
		{wire.OpCreateStream, 1, fakeSession, 0},
		{wire.OpNonReplicated, 2, fakeSession, wire.CmdPing},
		{wire.OpLogout, 2, fakeSession, 0},
		{wire.OpNonReplicated, 1, 0, wire.CmdPing},
	}
	got := s.received()
	if len(got) != len(want) {
		t.Fatalf("server saw %d requests, want %d", len(got), len(want))
	}
	for i, w := range want {
		h := got[i].header
		if h.Operation != w.op || h.Request != w.request || h.Session != w.session || h.NRCode != w.nr {
			t.Errorf("request %d: op %d request %d session %d nr %d; want %+v", i, h.Operation, h.Request, h.Session, h.NRCode, w)
		}
		wantClient := firstID
		if i == len(want)-1 {
			wantClient = c.ClientID()
		}
		if h.Client != wantClient {
			t.Errorf("request %d: client id %v, want %v", i, h.Client, wantClient)
		}
	}
}

// Operations that need a session are refused locally before login.
func TestNeedsSessionLocally(t *testing.T) {
	s := newFakeServer(t, okHandler)
	c := s.dial(t)
	for _, code := range []wire.Command{wire.CmdCreateStream, wire.CmdSendMessages, wire.CmdLogoutUser} {
		if _, err := c.call(code, nil); !errors.Is(err, ErrNotLoggedIn) {
			t.Errorf("code %d before login: %v", code, err)
		}
	}
	if len(s.received()) != 0 {
		t.Fatal("a request reached the server")
	}
}

// 57 and 58 are replayed as the identical frame every 50 ms until success.
func TestTransientReplaysIdenticalFrame(t *testing.T) {
	var answered atomic.Int32
	s := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		if h.Operation == wire.OpCreateStream && answered.Add(1) <= 2 {
			code := wire.TransientNotCommitted
			if answered.Load() == 2 {
				code = wire.TransientNotAccepted
			}
			return [][]byte{wire.RejectionFrame(wire.ReplyTo(h), code)}
		}
		return okHandler(h, body)
	})
	c := s.dial(t)
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.call(wire.CmdCreateStream, []byte{1, 'x'}); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 2*transientRetryInterval {
		t.Errorf("two replays took %v, want >= %v", elapsed, 2*transientRetryInterval)
	}
	got := s.received()[1:]
	if len(got) != 3 {
		t.Fatalf("server saw %d CreateStream frames, want 3", len(got))
	}
	for i := 1; i < len(got); i++ {
		if !bytes.Equal(got[i].frame, got[0].frame) {
			t.Fatalf("replay %d differs from the first frame", i)
		}
	}
}

// A transient answer past the budget is returned as the error.
func TestTransientBudgetRunsOut(t *testing.T) {
	s := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		if h.Operation == wire.OpStoreConsumerOffset {
			return [][]byte{wire.RejectionFrame(wire.ReplyTo(h), wire.TransientNotAccepted)}
		}
		return okHandler(h, body)
	})
	c := s.dial(t)
	c.opts.TransientBudget = 120 * time.Millisecond
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(wire.CmdStoreConsumerOffset, nil); !IsCode(err, wire.TransientNotAccepted) {
		t.Fatalf("err %v, want 58", err)
	}
}

// A header status and a result-section rejection both come back as *Error.
func TestRefusalsAreTypedErrors(t *testing.T) {
	s := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		switch {
		case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdGetStreams:
			return [][]byte{wire.DenialFrame(wire.ReplyTo(h), wire.Unauthenticated)}
		case h.Operation == wire.OpCreateStream:
			return [][]byte{wire.RejectionFrame(wire.ReplyTo(h), wire.StreamNameAlreadyExists)}
		}
		return okHandler(h, body)
	})
	c := s.dial(t)
	if _, err := c.call(wire.CmdGetStreams, nil); !IsCode(err, wire.Unauthenticated) {
		t.Fatalf("status 40: %v", err)
	}
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(wire.CmdCreateStream, []byte{1, 'x'}); !IsCode(err, wire.StreamNameAlreadyExists) {
		t.Fatalf("rejection 1012: %v", err)
	}
}

// An eviction is *EvictedError, and the client is closed afterwards.
func TestEvictionClosesTheClient(t *testing.T) {
	s := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		return [][]byte{wire.Eviction{Client: h.Client, Reason: wire.EvictInvalidCredentials}.Bytes()}
	})
	c := s.dial(t)
	_, err := c.LoginUser("iggy", "wrong")
	var ev *EvictedError
	if !errors.As(err, &ev) || ev.Reason != wire.EvictInvalidCredentials || ev.Code() != wire.InvalidCredentials {
		t.Fatalf("err %v", err)
	}
	if err := c.Ping(); !errors.Is(err, ErrClosed) {
		t.Fatalf("after eviction: %v", err)
	}
}

// The window of an Eviction 14 is carried to the caller.
func TestEvictionCarriesProtocolWindow(t *testing.T) {
	s := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		return [][]byte{wire.IncompatibleProtocolEviction(h.Client).Bytes()}
	})
	c := s.dial(t)
	_, err := c.LoginUser("iggy", "iggy")
	var ev *EvictedError
	if !errors.As(err, &ev) || ev.VersionMin != wire.ProtocolVersionMin || ev.VersionMax != wire.ProtocolVersionCurrent {
		t.Fatalf("err %v", err)
	}
}

// A reply echoing the wrong request id is a protocol violation.
func TestWrongEchoIsProtocolError(t *testing.T) {
	s := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		rh := wire.ReplyTo(h)
		rh.Request++
		return wire.RawFrame(rh)
	})
	c := s.dial(t)
	if err := c.Ping(); !errors.Is(err, ErrProtocol) {
		t.Fatalf("err %v", err)
	}
}

// The login body carries protocol 0.12.2 and the SDK name.
func TestLoginPrefix(t *testing.T) {
	s := newFakeServer(t, okHandler)
	c := s.dial(t)
	info, err := c.LoginUser("iggy", "secret")
	if err != nil || info.UserID != 5 || info.Session != fakeSession || c.UserID() != 5 {
		t.Fatalf("info %+v err %v", info, err)
	}
	body := s.received()[0].frame[wire.HeaderSize:]
	p, creds, code := wire.DecodeLoginPrefix(body)
	if code != wire.OK || p.Version != wire.PackProtocolVersion(0, 12, 2) || p.SDKName != "iggy-go-client" {
		t.Fatalf("prefix %+v code %d", p, code)
	}
	l, code := wire.DecodeLoginPassword(creds)
	if code != wire.OK || l.Username != "iggy" || l.Password != "secret" {
		t.Fatalf("credentials %+v code %d", l, code)
	}
}

// Arguments the codec cannot encode are refused locally, never panicking.
func TestInvalidArgumentsRefusedLocally(t *testing.T) {
	s := newFakeServer(t, okHandler)
	c := s.dial(t)
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	long := string(bytes.Repeat([]byte{'a'}, 256))
	checks := []error{
		func() error { _, err := c.CreateStream(""); return err }(),
		func() error { _, err := c.CreateStream(long); return err }(),
		c.DeleteStream(wire.NamedID("")),
		func() error {
			_, err := c.CreateTopic(wire.NumericID(0), "t", 1, wire.Options{{Key: "", Kind: 1}})
			return err
		}(),
		func() error { _, err := c.CreatePersonalAccessToken(long, 0); return err }(),
	}
	for i, err := range checks {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("check %d: %v", i, err)
		}
	}
	if n := len(s.received()); n != 1 {
		t.Fatalf("%d requests reached the server, want only the login", n)
	}
}
