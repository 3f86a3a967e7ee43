package client

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// routesHandler answers 105 with three routes and everything else as okHandler.
func routesHandler(h wire.RequestHeader, body []byte) [][]byte {
	if h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPartitionRoutes {
		w := wire.Writer{}
		wire.EncodePartitionRoutes(&w, []wire.PartitionRoute{{PartitionID: 0}, {PartitionID: 1}, {PartitionID: 2}})
		return wire.RawFrame(wire.ReplyTo(h), w.Buf)
	}
	return okHandler(h, body)
}

// The helpers build the UpdateResource bodies of DESIGN.md and send them as
// metadata operation 150.
// covers RES-5, RES-9, PLACE-20
func TestUpdateResourceRequests(t *testing.T) {
	s := newFakeServer(t, routesHandler)
	c := s.dial(t)
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	expiry := wire.Option{Key: wire.OptMessageExpiry, Kind: wire.KindString, Value: []byte("7 days")}
	if err := c.UpdateTopic(wire.NumericID(1), wire.NamedID("t"), "t2", wire.Options{expiry}, wire.OptMaxTopicSize); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateStream(wire.NamedID("s"), "s2", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateUser(wire.NumericID(4), "", wire.UserStatusInactive); err != nil {
		t.Fatal(err)
	}
	routes, err := c.PartitionRoutes(wire.NumericID(1), wire.NumericID(0))
	if err != nil || len(routes) != 3 || routes[2].PartitionID != 2 {
		t.Fatalf("routes %+v %v", routes, err)
	}
	name := func(k, v string) wire.Option { return wire.Option{Key: k, Kind: wire.KindString, Value: []byte(v)} }
	want := []wire.UpdateResourceRequest{
		{Scope: wire.ScopeTopic, Stream: wire.NumericID(1), Topic: wire.NamedID("t"),
			Set: wire.Options{name("name", "t2"), expiry}, Reset: []string{wire.OptMaxTopicSize}},
		{Scope: wire.ScopeStream, Stream: wire.NamedID("s"), Set: wire.Options{name("name", "s2")}},
		{Scope: wire.ScopeUser, User: wire.NumericID(4), Set: wire.Options{name("status", "inactive")}},
	}
	got := s.received()[1:]
	for i, q := range want {
		if got[i].header.Operation != wire.OpUpdateResource {
			t.Fatalf("request %d: operation %d", i, got[i].header.Operation)
		}
		back, code := wire.DecodeUpdateResourceRequest(got[i].frame[wire.HeaderSize:])
		if code != wire.OK || !reflect.DeepEqual(back, q) {
			t.Fatalf("request %d:\n got %+v (%v)\nwant %+v", i, back, code, q)
		}
	}
	r := got[3]
	if r.header.Operation != wire.OpNonReplicated || r.header.NRCode != wire.CmdPartitionRoutes {
		t.Fatalf("routes request header %+v", r.header)
	}
}

// covers RES-5
func TestUpdateResourceArgumentsRefusedLocally(t *testing.T) {
	s := newFakeServer(t, okHandler)
	c := s.dial(t)
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	long := string(bytes.Repeat([]byte{'a'}, 256))
	tooMany := make([]string, wire.ResetKeysMax+1)
	for i := range tooMany {
		tooMany[i] = "k"
	}
	checks := []error{
		c.UpdateResource(wire.UpdateResourceRequest{Scope: 9, Stream: wire.NumericID(0)}),
		c.UpdateStream(wire.NamedID(""), "x", nil),
		c.UpdateTopic(wire.NumericID(0), wire.NumericID(0), long, nil),
		c.UpdateTopic(wire.NumericID(0), wire.NumericID(0), "", nil, ""),
		c.UpdateTopic(wire.NumericID(0), wire.NumericID(0), "", nil, tooMany...),
		c.UpdateUser(wire.NumericID(1), "", 7),
		func() error { _, err := c.PartitionRoutes(wire.NamedID(long), wire.NumericID(0)); return err }(),
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
