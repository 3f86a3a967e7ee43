package e2e

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// deferredSlack is how late past its cause a deferred poll's answer may be
// on the shared test machine; the waits below are far longer.
const deferredSlack = 3 * time.Second

// deferredTick is how early a wait may end: it counts whole ticks of 10 ms
// from the tick before the poll arrived.
const deferredTick = 10 * time.Millisecond

// covers DEFP-2, DEFP-4, DEFP-6, DEFP-16, DEFP-18, DEFP-20, MSG-3, MSG-4, MSG-5, MSG-6
func TestDeferredPollOverBinaryTransports(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: map[string]string{
		"IGGY_WEBSOCKET_ENABLED": "true", "IGGY_WEBSOCKET_ADDRESS": "127.0.0.1:0",
		"IGGY_QUIC_ENABLED": "true", "IGGY_QUIC_ADDRESS": "127.0.0.1:0",
		// A QUIC cancel goes on a stream beside the parked poll's.
		"IGGY_QUIC_MAX_CONCURRENT_BIDI_STREAMS": "2",
	}})
	for _, tc := range []transportCase{
		{client.TransportTCP, s.addr, bus.TransportTCP},
		{client.TransportWebSocket, listeningAddr(t, s, "websocket listening on "), bus.TransportWebSocket},
		{client.TransportQUIC, listeningAddr(t, s, "quic listening on "), bus.TransportQUIC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deferredPollScenario(t, s, tc)
			pollOptionsScenario(t, s, tc)
			groupedFetchScenario(t, s, tc)
		})
	}
}

// deferredPollScenario parks polls of a consumer on tc's transport while a
// TCP producer sends.
func deferredPollScenario(t *testing.T, s *server, tc transportCase) {
	consumer, producer := dialTransport(t, tc), s.root()
	if _, err := consumer.LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("login: %v", err)
	}
	stream, topic := createStreamTopic(t, producer, "deferred-"+tc.name, "events", 1)
	q := wire.PollMessagesRequest{Consumer: client.Consumer(1), StreamID: stream, TopicID: topic,
		Partition: wire.OptionalPartition{Given: true}, Strategy: wire.PollingStrategy{Kind: wire.PollOffset}, Count: 100}
	send := func(n int) {
		msgs := make([]client.Message, n)
		for i := range msgs {
			msgs[i] = client.Message{Payload: []byte("m")}
		}
		if _, err := producer.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, msgs); err != nil {
			t.Fatalf("send: %v", err)
		}
	}

	t.Run("woken by data", func(t *testing.T) {
		type result struct {
			msgs []client.ReceivedMessage
			err  error
			at   time.Time
		}
		got := make(chan result, 1)
		go func() {
			_, msgs, err := consumer.DeferredPoll(nil, q, time.Minute, 3, 0)
			got <- result{msgs, err, time.Now()}
		}()
		time.Sleep(200 * time.Millisecond)
		send(2) // fewer than min_count: still parked
		time.Sleep(200 * time.Millisecond)
		select {
		case r := <-got:
			t.Fatalf("answered before min_count: %d messages, %v", len(r.msgs), r.err)
		default:
		}
		send(1)
		sent := time.Now()
		r := <-got
		if r.err != nil || len(r.msgs) != 3 {
			t.Fatalf("woken poll: %d messages, %v", len(r.msgs), r.err)
		}
		checkContiguous(t, 0, r.msgs)
		if late := r.at.Sub(sent); late > deferredSlack {
			t.Fatalf("answered %v after the message that completed it", late)
		}
	})

	t.Run("wait runs out", func(t *testing.T) {
		q := q
		q.Strategy.Value = 3
		start := time.Now()
		_, msgs, err := consumer.DeferredPoll(nil, q, 500*time.Millisecond, 5, 0)
		took := time.Since(start)
		if err != nil || len(msgs) != 0 {
			t.Fatalf("expired poll: %d messages, %v", len(msgs), err)
		}
		if took < 500*time.Millisecond-deferredTick || took > 500*time.Millisecond+deferredSlack {
			t.Fatalf("a 500 ms wait took %v", took)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		q := q
		q.Strategy.Value = 3
		cancel := make(chan struct{})
		time.AfterFunc(300*time.Millisecond, func() { close(cancel) })
		start := time.Now()
		_, msgs, err := consumer.DeferredPoll(cancel, q, time.Minute, 5, 0)
		if err != nil || len(msgs) != 0 {
			t.Fatalf("cancelled poll: %d messages, %v", len(msgs), err)
		}
		if took := time.Since(start); took > 300*time.Millisecond+deferredSlack {
			t.Fatalf("a poll cancelled after 300 ms answered after %v", took)
		}
		// The connection is in step: a plain poll after it is answered.
		if _, msgs, err := consumer.PollMessages(client.Consumer(1), stream, topic, new(uint32), wire.PollOffset, 0, 10, false); err != nil || len(msgs) != 3 {
			t.Fatalf("poll after the cancel: %d messages, %v", len(msgs), err)
		}
	})
}
