package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// The transport scenario's workload: batches of messages sent, then polled back.
const (
	transportBatches     = 10
	transportBatchSize   = 100
	transportMessages    = transportBatches * transportBatchSize
	transportStoredAt    = 500
	transportUnknownCode = wire.Command(7777)
	// transportTooManyPartitions is the scenario's bad input on every
	// transport: a topic with one partition more than a create may name.
	transportTooManyPartitions = wire.PartitionsPerRequestMax + 1
)

// transportCase is one client transport of the server under test.
type transportCase struct {
	name      string // client.Options.Transport
	addr      string
	transport bus.Transport // what the node records for the connection
}

// scenarioResult is everything the scenario observes that must not depend
// on the transport (ids of streams and users do, as the runs share a server).
type scenarioResult struct {
	partitions   uint32
	baseOffsets  []uint64
	polled       []polledMessage
	offset       wire.ConsumerOffsetInfo
	deniedCreate wire.Code
	deniedStats  wire.Code
	badInput     wire.Code
}

type polledMessage struct {
	Offset    uint64
	ID        [16]byte
	Payload   []byte
	Headers   []byte
	Partition uint32
}

// The same scenario over TCP, WebSocket, QUIC and HTTP against one server
// gives identical results: login, stream and topic, 1,000 messages with
// headers sent and polled back, a stored offset, a permission denial (41)
// and a bad input (a topic with too many partitions, 2015); the binary
// transports also refuse an unknown command (status 3, no body). Each
// binary connection is its own session, tagged with its transport. The
// server then stops cleanly with clients connected.
// covers TRAN-1, TRAN-2, TRAN-3, TRAN-4, TRAN-5
func TestSameScenarioOverEveryTransport(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: map[string]string{
		"IGGY_WEBSOCKET_ENABLED":        "true",
		"IGGY_WEBSOCKET_ADDRESS":        "127.0.0.1:0",
		"IGGY_QUIC_ENABLED":             "true",
		"IGGY_QUIC_ADDRESS":             "127.0.0.1:0",
		"IGGY_HTTP_ENABLED":             "true",
		"IGGY_HTTP_ADDRESS":             "127.0.0.1:0",
		"IGGY_HTTP_JWT_ENCODING_SECRET": httpSecret,
	}})
	h := attachHTTP(t, s, false)
	cases := []transportCase{
		{client.TransportTCP, s.addr, bus.TransportTCP},
		{client.TransportWebSocket, listeningAddr(t, s, "websocket listening on "), bus.TransportWebSocket},
		{client.TransportQUIC, listeningAddr(t, s, "quic listening on "), bus.TransportQUIC},
		{transportHTTP, h.base, bus.TransportHTTP},
	}
	warmUp(t, s)
	results := make([]scenarioResult, len(cases))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.transport == bus.TransportHTTP {
				results[i] = runHTTPScenario(t, h)
				return
			}
			results[i] = runTransportScenario(t, tc)
		})
	}
	for i := 1; i < len(cases); i++ {
		if !reflect.DeepEqual(results[0], results[i]) {
			t.Errorf("%s and %s differ:\n%+v\n%+v%s", cases[0].name, cases[i].name, summary(results[0]), summary(results[i]),
				polledDiff(results[0].polled, results[i].polled))
		}
	}
	if r := results[0]; r.deniedCreate != wire.Unauthorized || r.deniedStats != wire.Unauthorized ||
		r.badInput != wire.TooManyPartitions || r.offset.StoredOffset != transportStoredAt {
		t.Errorf("%s: unexpected refusals or stored offset: %s", cases[0].name, summary(r))
	}
	// Every run wrote to the one node: a TCP client sees all four streams.
	streams, err := s.root().GetStreams()
	if err != nil || len(streams) != len(cases) {
		t.Fatalf("streams after the runs: %+v %v", streams, err)
	}
	for _, st := range streams {
		if st.MessagesCount != transportMessages {
			t.Errorf("stream %q holds %d messages, want %d", st.Name, st.MessagesCount, transportMessages)
		}
	}
	// SIGTERM with WebSocket and QUIC clients still connected exits cleanly.
	s.stop()
}

// warmUp runs the send/poll workload once, untimed, on a scratch stream it
// then deletes, so the first transport measured does not pay the server's
// start-up costs for all of them.
func warmUp(t *testing.T, s *server) {
	t.Helper()
	c := s.root()
	stream, topic := createStreamTopic(t, c, "warm-up", "events", 1)
	var res scenarioResult
	sendTransportMessages(t, c, stream, topic, &res)
	pollAll(t, c, stream, topic, 0)
	if err := c.DeleteStream(stream); err != nil {
		t.Fatalf("delete the warm-up stream: %v", err)
	}
}

// listeningAddr waits for the server's "<transport> listening on" line.
func listeningAddr(t *testing.T, s *server, marker string) string {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(s.stdout.String(), "\n") {
			if i := strings.Index(line, marker); i >= 0 {
				return strings.TrimSpace(line[i+len(marker):])
			}
		}
		time.Sleep(readyPollPeriod)
	}
	t.Fatalf("no %q line within %v\nstdout:\n%s", marker, startTimeout, s.stdout)
	return ""
}

func dialTransport(t *testing.T, tc transportCase) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), tc.addr, client.Options{Transport: tc.name, RequestTimeout: requestTimeout})
	if err != nil {
		t.Fatalf("dial %s %s: %v", tc.name, tc.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func runTransportScenario(t *testing.T, tc transportCase) scenarioResult {
	var res scenarioResult
	root := dialTransport(t, tc)
	if _, err := root.LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("login: %v", err)
	}
	me, err := root.GetMe()
	if err != nil || me.Transport != uint8(tc.transport) {
		t.Fatalf("GetMe: transport %d, want %d (err %v)", me.Transport, tc.transport, err)
	}
	stream, topic := createStreamTopic(t, root, "transport-"+tc.name, "events", 1)
	d, found, err := root.GetTopic(stream, topic)
	if err != nil || !found {
		t.Fatalf("GetTopic: %v %v", found, err)
	}
	res.partitions = d.Topic.PartitionsCount

	start := time.Now()
	sent := sendTransportMessages(t, root, stream, topic, &res)
	got := pollAll(t, root, stream, topic, 0)
	elapsed := time.Since(start)
	logTransportRate(t, tc.name, elapsed)
	recordPolled(t, got, sent, &res)

	if err := root.StoreOffset(client.Consumer(7), stream, topic, 0, transportStoredAt); err != nil {
		t.Fatalf("store offset: %v", err)
	}
	if res.offset, found, err = root.GetOffset(client.Consumer(7), stream, topic, 0); err != nil || !found {
		t.Fatalf("get offset: %+v %v %v", res.offset, found, err)
	}

	res.deniedCreate, res.deniedStats = deniedCodes(t, tc, root)
	_, err = root.CreateTopic(stream, "too-many", transportTooManyPartitions, nil)
	res.badInput = codeOf(t, err)
	// HTTP has no command codes, so this refusal is checked, not compared.
	h, body, err := root.Do(wire.OpNonReplicated, transportUnknownCode, nil)
	if err != nil || h.Status != wire.InvalidCommand || len(body) != 0 {
		t.Fatalf("unknown command: status %d, %d body bytes, err %v; want status 3 and no body", h.Status, len(body), err)
	}
	if err := root.Ping(); err != nil {
		t.Fatalf("session unusable after the refusals: %v", err)
	}
	return res
}

// logTransportRate logs the workload's messages per second on one transport.
// recordPolled checks that got is exactly sent, in order, and keeps it for
// the cross-transport comparison.
func recordPolled(t *testing.T, got []client.ReceivedMessage, sent []sentMessage, res *scenarioResult) {
	t.Helper()
	if len(got) != len(sent) {
		t.Fatalf("polled %d messages, want %d", len(got), len(sent))
	}
	for i, m := range got {
		if err := checkMessage(m, sent[i]); err != nil {
			t.Fatal(err)
		}
		res.polled = append(res.polled, polledMessage{m.Offset, m.ID, m.Payload, m.Headers, m.Partition})
	}
}

func logTransportRate(t *testing.T, name string, elapsed time.Duration) {
	t.Helper()
	t.Logf("%s: sent %d messages in %d batches and polled them back in %v (%.0f messages/s)",
		name, transportMessages, transportBatches, elapsed, float64(transportMessages)/elapsed.Seconds())
}

// sendTransportMessages sends the workload and records the base offsets.
func sendTransportMessages(t *testing.T, c *client.Client, stream, topic wire.Identifier, res *scenarioResult) []sentMessage {
	t.Helper()
	part0 := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}
	var sent []sentMessage
	for b := range transportBatches {
		msgs := transportBatch(b)
		base, err := c.SendMessages(stream, topic, part0, msgs)
		if err != nil {
			t.Fatalf("send batch %d: %v", b, err)
		}
		res.baseOffsets = append(res.baseOffsets, base)
		for i, m := range msgs {
			sent = append(sent, sentMessage{offset: base + uint64(i), msg: m})
		}
	}
	return sent
}

// transportBatch is batch b of the workload, the same on every transport.
func transportBatch(b int) []client.Message {
	msgs := make([]client.Message, transportBatchSize)
	for i := range msgs {
		n := uint64(b*transportBatchSize + i)
		msgs[i] = client.Message{
			ID:      messageID(0xC1, n),
			Payload: bytes.Repeat(fmt.Appendf(nil, "message %d;", n), 1+int(n%7)),
			Headers: map[string]client.HeaderValue{
				"seq":   {Kind: wire.KindUint64, Value: binary.LittleEndian.AppendUint64(nil, n)},
				"batch": {Kind: wire.KindString, Value: fmt.Appendf(nil, "batch-%d", b)},
			},
			OriginTimestamp: 1_700_000_000_000_000 + n,
		}
	}
	return msgs
}

// deniedCodes creates a user without permissions, logs it in over the same
// transport and returns the codes of two refused requests (41 expected).
func deniedCodes(t *testing.T, tc transportCase, root *client.Client) (wire.Code, wire.Code) {
	t.Helper()
	name := "user-" + tc.name
	if _, err := root.CreateUser(name, name+"-pass", wire.UserStatusActive, nil); err != nil {
		t.Fatalf("create user: %v", err)
	}
	u := dialTransport(t, tc)
	if _, err := u.LoginUser(name, name+"-pass"); err != nil {
		t.Fatalf("login %s: %v", name, err)
	}
	_, errCreate := u.CreateStream("denied-" + tc.name)
	_, errStats := u.GetStats()
	return codeOf(t, errCreate), codeOf(t, errStats)
}

func codeOf(t *testing.T, err error) wire.Code {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a server refusal, got %v", err)
	}
	return e.Code
}

// summary is a result without the message bodies, for failure messages.
func summary(r scenarioResult) string {
	return fmt.Sprintf("partitions %d, bases %v, %d polled, offset %+v, denied %d/%d, bad input %d",
		r.partitions, r.baseOffsets, len(r.polled), r.offset, r.deniedCreate, r.deniedStats, r.badInput)
}

// polledDiff describes the first polled message that differs, or is "".
func polledDiff(a, b []polledMessage) string {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("\npolled message %d:\n%+v\n%+v", i, a[i], b[i])
		}
	}
	return ""
}
