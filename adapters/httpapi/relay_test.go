package httpapi

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/selfsigned"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// relayNode is one node of a two-node set in a test: the real adapter on a
// loopback socket over a fake node. Its node answers PartitionRoutes with
// routes, names leader as the metadata primary, confirms sends (or holds
// them while hold is set) and answers everything else with success.
type relayNode struct {
	srv  *Server
	node *fakeNode
	base string
	logs *syncBuffer
	hold bool
}

// syncBuffer is a log sink safe for the adapter's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Routes of the test set: partition 0 led by node 1, partition 1 by node 0.
var testRoutes = []wire.PartitionRoute{{PartitionID: 0, Primary: 1}, {PartitionID: 1, Primary: 0}}

func startRelayNode(t *testing.T, self uint8, key []byte, peers map[uint8]string, leader string,
	answer func(h wire.RequestHeader) [][]byte) *relayNode {
	t.Helper()
	return startRelayNodeOn(t, config.HTTPTLS{}, self, key, peers, leader, answer)
}

// startRelayNodeOn is startRelayNode serving tlsCfg.
func startRelayNodeOn(t *testing.T, tlsCfg config.HTTPTLS, self uint8, key []byte, peers map[uint8]string, leader string,
	answer func(h wire.RequestHeader) [][]byte) *relayNode {
	t.Helper()
	n := &relayNode{logs: &syncBuffer{}}
	n.node = newFakeNode(t, func(h wire.RequestHeader, _ int) [][]byte {
		if answer != nil {
			if parts := answer(h); parts != nil {
				return parts
			}
		}
		return n.answer(h, leader)
	})
	cluster := &Cluster{Self: self, SelfName: nodeName(self), Peers: peers, Key: key}
	srv, err := New(Options{HTTP: config.HTTP{JWT: testJWT(), MaxRequestSize: 1 << 20, TLS: tlsCfg}, Cluster: cluster,
		Log: slog.New(slog.NewTextHandler(n.logs, nil))}, n.node.hub)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { _ = srv.Close() })
	n.srv, n.base = srv, "http://"+srv.Addr().String()
	if tlsCfg.Enabled {
		n.base = "https://" + srv.Addr().String()
	}
	return n
}

func nodeName(id uint8) string { return "node-" + string(rune('0'+id)) }

func (n *relayNode) answer(h wire.RequestHeader, leader string) [][]byte {
	var w wire.Writer
	switch {
	case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPartitionRoutes:
		wire.EncodePartitionRoutes(&w, testRoutes)
	case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdGetClusterMetadata:
		m := wire.ClusterMetadata{Name: "test"}
		for _, name := range []string{"node-0", "node-1"} {
			role := wire.ClusterRoleFollower
			if name == leader {
				role = wire.ClusterRoleLeader
			}
			m.Nodes = append(m.Nodes, wire.ClusterNode{Name: name, Address: "127.0.0.1", Role: role})
		}
		m.Encode(&w)
	case h.Operation == wire.OpSendMessages:
		if n.hold {
			return nil
		}
		wire.EncodeSendConfirmations(&w, []wire.SendConfirmation{{PartitionID: 0}})
	}
	return okReply(h, w.Buf)
}

// sends counts the send frames the node was given.
func (n *relayNode) sends() int {
	frames, _ := n.node.seen()
	count := 0
	for _, h := range frames {
		if h.Operation == wire.OpSendMessages {
			count++
		}
	}
	return count
}

// testBearer is an access token every test node accepts (user 9, as the
// fake node's TrustedRegister answers).
func testBearer(t *testing.T) string {
	t.Helper()
	iss, err := newTokenIssuer(testJWT(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.mint(tokenAccess, "relay-test", tokenUser{id: 9, name: "u9"})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Token
}

// sendTo posts a one-message send to partition p through base.
func sendTo(t *testing.T, base, tok string, p byte) (int, errorBody, http.Header) {
	t.Helper()
	body := `{"partitioning":{"kind":"partition_id","value":"` + map[byte]string{0: "AAAAAA==", 1: "AQAAAA=="}[p] +
		`"},"messages":[{"payload":"aGk="}]}`
	return post(t, base+"/streams/1/topics/1/messages", tok, strings.NewReader(body))
}

func post(t *testing.T, url, tok string, body io.Reader) (int, errorBody, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e errorBody
	_ = json.Unmarshal(b, &e)
	return resp.StatusCode, e, resp.Header
}

// A node without key material serves the partition it leads and answers a
// send to another node's partition with a transient 503 carrying 58,
// relaying nothing.
// covers RELAY-3
func TestNoKeyServesOnlyLedPartitions(t *testing.T) {
	target := startRelayNode(t, 1, RelayKey("k", "", ""), nil, "node-1", nil)
	origin := startRelayNode(t, 0, nil, map[uint8]string{1: target.base}, "node-1", nil)
	tok := testBearer(t)
	if status, e, _ := sendTo(t, origin.base, tok, 1); status != http.StatusCreated {
		t.Fatalf("send to the partition it leads: %d %+v", status, e)
	}
	status, e, h := sendTo(t, origin.base, tok, 0)
	if status != http.StatusServiceUnavailable || e.ID != uint32(wire.TransientNotAccepted) || h.Get("Retry-After") != "1" {
		t.Fatalf("send to another node's partition without a key: %d %+v", status, e)
	}
	if target.sends() != 0 {
		t.Fatal("a node without key material relayed")
	}
}

// With the same key the send reaches the primary's node; with different
// keys the primary refuses the proof, and the origin logs a warning and
// answers 503 relay_refused with Retry-After: 1, having admitted nothing.
// covers RELAY-2, RELAY-6, RELAY-12, RELAY-13
func TestRefusedProofIsRelayRefused(t *testing.T) {
	tok := testBearer(t)
	same := startRelayNode(t, 1, RelayKey("k", "", ""), nil, "node-1", nil)
	origin := startRelayNode(t, 0, RelayKey("k", "", ""), map[uint8]string{1: same.base}, "node-1", nil)
	if status, e, _ := sendTo(t, origin.base, tok, 0); status != http.StatusCreated || same.sends() != 1 {
		t.Fatalf("relay under a shared key: %d %+v, target sends %d", status, e, same.sends())
	}
	other := startRelayNode(t, 1, RelayKey("rotated", "", ""), nil, "node-1", nil)
	origin = startRelayNode(t, 0, RelayKey("k", "", ""), map[uint8]string{1: other.base}, "node-1", nil)
	status, e, h := sendTo(t, origin.base, tok, 0)
	if status != http.StatusServiceUnavailable || e.Code != "relay_refused" || h.Get("Retry-After") != "1" {
		t.Fatalf("relay under another key: %d %+v Retry-After %q", status, e, h.Get("Retry-After"))
	}
	if other.sends() != 0 {
		t.Fatal("a refused relay admitted the send")
	}
	if !strings.Contains(origin.logs.String(), "level=WARN") || !strings.Contains(origin.logs.String(), "relay proof refused") {
		t.Fatalf("no warning logged: %s", origin.logs.String())
	}
}

// Metadata forwards and partition relays take slots of one limit of 128:
// with every slot taken, a relay and a control-plane write on a node that
// is not the metadata primary both get 503 forward_busy with Retry-After: 1;
// one slot freed lets a relay through.
// covers RELAY-16, RELAY-17
func TestForwardsShareOneLimit(t *testing.T) {
	tok := testBearer(t)
	target := startRelayNode(t, 1, RelayKey("k", "", ""), nil, "node-1", nil)
	origin := startRelayNode(t, 0, RelayKey("k", "", ""), map[uint8]string{1: target.base}, "node-1", nil)
	for range forwardsMax {
		if !origin.srv.forwards.take() {
			t.Fatal("fewer than 128 forward slots")
		}
	}
	busy := func(what string, status int, e errorBody, h http.Header) {
		if status != http.StatusServiceUnavailable || e.Code != "forward_busy" || h.Get("Retry-After") != "1" {
			t.Fatalf("%s at the limit: %d %+v", what, status, e)
		}
	}
	status, e, h := sendTo(t, origin.base, tok, 0)
	busy("relay", status, e, h)
	status, e, h = post(t, origin.base+"/streams", tok, strings.NewReader(`{"name":"s"}`))
	busy("metadata forward", status, e, h)
	if status, e, _ := sendTo(t, origin.base, tok, 1); status != http.StatusCreated {
		t.Fatalf("a send this node serves itself needs no slot: %d %+v", status, e)
	}
	origin.srv.forwards.give()
	if status, e, _ := sendTo(t, origin.base, tok, 0); status != http.StatusCreated {
		t.Fatalf("relay with a free slot: %d %+v", status, e)
	}
}

// A partition request has one deadline from its arrival: a relay whose
// target never answers ends at the origin's deadline with the send's
// outcome-unknown 504, not after the target's own.
// covers RELAY-19
func TestPartitionDeadlineCoversTheRelay(t *testing.T) {
	tok := testBearer(t)
	target := startRelayNode(t, 1, RelayKey("k", "", ""), nil, "node-1", nil)
	target.hold = true
	const targetDeadline = time.Second // short, so the held request ends before the test
	target.srv.partitionDeadline = targetDeadline
	origin := startRelayNode(t, 0, RelayKey("k", "", ""), map[uint8]string{1: target.base}, "node-1", nil)
	const deadline = 200 * time.Millisecond
	origin.srv.partitionDeadline = deadline
	start := time.Now()
	status, e, _ := sendTo(t, origin.base, tok, 0)
	if status != http.StatusGatewayTimeout || e.Code != "produce_timeout" {
		t.Fatalf("relay to a silent primary: %d %+v", status, e)
	}
	if took := time.Since(start); took >= targetDeadline {
		t.Fatalf("answered after %v: the target's deadline, not the origin's %v", took, deadline)
	}
}

// The metadata forward budget counts from before the body is read: a
// control-plane write whose body takes longer than the budget to arrive
// is answered 503 no_reachable_primary without reaching the node.
// covers RELAY-18
func TestForwardBudgetStartsBeforeTheBody(t *testing.T) {
	tok := testBearer(t)
	origin := startRelayNode(t, 0, RelayKey("k", "", ""), nil, "node-1", nil)
	const budget = 200 * time.Millisecond
	origin.srv.forwardBudget = budget
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"name":`))
		time.Sleep(2 * budget)
		_, _ = pw.Write([]byte(`"s"}`))
		_ = pw.Close()
	}()
	status, e, _ := post(t, origin.base+"/streams", tok, pr)
	if status != http.StatusServiceUnavailable || e.Code != "no_reachable_primary" {
		t.Fatalf("a write whose upload spent the budget: %d %+v", status, e)
	}
	frames, _ := origin.node.seen()
	for _, h := range frames {
		if h.Operation == wire.OpCreateStream {
			t.Fatal("the write reached the node after its budget")
		}
	}
}

// testClient is the tests' HTTP client; it takes the nodes' self-signed
// certificates on trust (the relays between nodes are what is tested).
var testClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// writeSelfSigned writes a fresh self-signed certificate and key as PEM
// files and returns the TLS configuration that serves them.
func writeSelfSigned(t *testing.T) config.HTTPTLS {
	t.Helper()
	cert, err := selfsigned.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := config.HTTPTLS{Enabled: true, CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	for path, block := range map[string]*pem.Block{c.CertFile: {Type: "CERTIFICATE", Bytes: cert.Certificate[0]},
		c.KeyFile: {Type: "PRIVATE KEY", Bytes: key}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// Under http.tls a relay goes over HTTPS to a peer that presents this
// node's own certificate; a peer with another certificate is never sent
// the request, so the origin answers 58 (nothing admitted) at its deadline.
// covers RELAY-2, RELAY-13
func TestTLSRelayTrustsOnlyTheSharedCertificate(t *testing.T) {
	tok := testBearer(t)
	shared := writeSelfSigned(t)
	target := startRelayNodeOn(t, shared, 1, RelayKey("k", "", ""), nil, "node-1", nil)
	origin := startRelayNodeOn(t, shared, 0, RelayKey("k", "", ""), map[uint8]string{1: target.base}, "node-1", nil)
	if status, e, _ := sendTo(t, origin.base, tok, 0); status != http.StatusCreated || target.sends() != 1 {
		t.Fatalf("relay over https: %d %+v, target sends %d", status, e, target.sends())
	}
	stranger := startRelayNodeOn(t, writeSelfSigned(t), 1, RelayKey("k", "", ""), nil, "node-1", nil)
	origin = startRelayNodeOn(t, shared, 0, RelayKey("k", "", ""), map[uint8]string{1: stranger.base}, "node-1", nil)
	origin.srv.partitionDeadline = 200 * time.Millisecond
	status, e, _ := sendTo(t, origin.base, tok, 0)
	if status != http.StatusServiceUnavailable || e.ID != uint32(wire.TransientNotAccepted) || stranger.sends() != 0 {
		t.Fatalf("relay to a peer with another certificate: %d %+v, its sends %d", status, e, stranger.sends())
	}
}

// A relay reaching a node that no longer leads the partition goes no
// further (one hop): that node's 89 is answered 58, nothing admitted, and
// the origin looks the route up and relays again within its deadline.
// covers RELAY-2, RELAY-14
func TestRelayToAFormerPrimaryIsTriedAgain(t *testing.T) {
	tok := testBearer(t)
	var mu sync.Mutex
	refusals := 1
	target := startRelayNode(t, 1, RelayKey("k", "", ""), nil, "node-1", func(h wire.RequestHeader) [][]byte {
		mu.Lock()
		defer mu.Unlock()
		if h.Operation == wire.OpSendMessages && refusals > 0 {
			refusals--
			return [][]byte{wire.DenialFrame(wire.ReplyTo(h), wire.NotPrimary)}
		}
		return nil
	})
	origin := startRelayNode(t, 0, RelayKey("k", "", ""), map[uint8]string{1: target.base}, "node-1", nil)
	if status, e, _ := sendTo(t, origin.base, tok, 0); status != http.StatusCreated || target.sends() != 2 {
		t.Fatalf("relay after a moved route: %d %+v, target sends %d", status, e, target.sends())
	}
}

// flowPollMessages and flowPayloadBytes make a relayed poll answer of some
// 11 MB of JSON: more than the loopback socket buffers take from a client
// that never reads.
const (
	flowPollMessages = 128
	flowPayloadBytes = 64 << 10
)

// bigPollAnswer answers a poll with flowPollMessages messages of
// flowPayloadBytes.
func bigPollAnswer(t *testing.T) func(h wire.RequestHeader) [][]byte {
	msgs := make([]batch.Message, flowPollMessages)
	for i := range msgs {
		msgs[i] = batch.Message{Payload: bytes.Repeat([]byte{byte(i)}, flowPayloadBytes)}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		t.Fatalf("build the poll's record: %v", code)
	}
	batch.Stamp(rec, 0, 0, 1)
	prefix := wire.PollPrefix{PartitionID: 0, CurrentOffset: flowPollMessages - 1, MessagesCount: flowPollMessages}.Bytes()
	return func(h wire.RequestHeader) [][]byte {
		if h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPollMessages {
			return okReply(h, append(append([]byte(nil), prefix...), rec...))
		}
		return nil
	}
}

// A relay waits for reply space holding its forward slot: while the client
// that asked reads the relayed answer's first byte and no more (the answer
// is more than the socket buffers hold), the slot stays taken, and it is
// given back once the connection is torn down.
// covers FLOW-3
func TestRelayHoldsItsSlotUntilTheAnswerIsWritten(t *testing.T) {
	tok := testBearer(t)
	target := startRelayNode(t, 1, RelayKey("k", "", ""), nil, "node-1", bigPollAnswer(t))
	origin := startRelayNode(t, 0, RelayKey("k", "", ""), map[uint8]string{1: target.base}, "node-1", nil)
	c, err := net.Dial("tcp", strings.TrimPrefix(origin.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET /streams/1/topics/1/messages?partition_id=0&kind=offset&value=0&count=1000 HTTP/1.1\r\n" +
		"Host: test\r\nAuthorization: Bearer " + tok + "\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	// The first byte: the origin has the target's answer and writes it.
	_ = c.SetReadDeadline(time.Now().Add(relayFirstByteWait))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatalf("the relayed answer's first byte: %v", err)
	}
	slots := func() int { return len(origin.srv.forwards) }
	time.Sleep(relayHeldCheck)
	if slots() != 1 {
		t.Fatalf("%d forward slots taken while the relayed answer waits for the client to read, want 1", slots())
	}
	_ = c.Close()
	waitFor(t, "the slot to come back after the connection closed", func() bool { return slots() == 0 })
}

// relayHeldCheck is how long the unread answer is left before the slot is
// checked; relayFirstByteWait bounds the relay of the answer (about 1.5 s
// here, more than 10 s under -race).
const (
	relayHeldCheck     = 300 * time.Millisecond
	relayFirstByteWait = time.Minute
)

// waitFor polls cond for up to a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
