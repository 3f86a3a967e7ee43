package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// covers DEFP-5, DEFP-7, DEFP-8, DEFP-21, MSG-3, MSG-4, MSG-5, MSG-6
func TestDeferredPollOverHTTP(t *testing.T) {
	h := startHTTPServer(t, nil)
	producer := h.root()
	stream, topic := createStreamTopic(t, producer, "s", "t", 1)
	tok := h.rootToken(t)
	path := "/streams/s/topics/t/messages/deferred?partition_id=0&consumer_id=9&kind=next&count=10"

	// An empty partition: answered with nothing once the wait runs out.
	start := time.Now()
	var got struct {
		Count    uint32 `json:"count"`
		Messages []any  `json:"messages"`
	}
	h.do(t, "GET", path+"&max_wait=500ms", tok, nil).ok(t, http.StatusOK, "expired deferred poll").json(t, &got)
	if took := time.Since(start); len(got.Messages) != 0 || took < 500*time.Millisecond-deferredTick || took > 500*time.Millisecond+deferredSlack {
		t.Fatalf("a 500 ms wait: %d messages after %v", len(got.Messages), took)
	}

	// A parked POST is woken by two messages and commits its offset.
	sent := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		msgs := []client.Message{{Payload: []byte("a")}, {Payload: []byte("b")}}
		_, err := producer.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, msgs)
		sent <- err
	}()
	start = time.Now()
	h.do(t, "POST", path+"&max_wait=20s&min_count=2", tok, nil).ok(t, http.StatusOK, "woken deferred poll").json(t, &got)
	if err := <-sent; err != nil {
		t.Fatalf("send: %v", err)
	}
	if took := time.Since(start); len(got.Messages) != 2 || took > 300*time.Millisecond+deferredSlack {
		t.Fatalf("woken poll: %d messages after %v", len(got.Messages), took)
	}
	if o := h.getObj(t, "/streams/s/topics/t/consumer-offsets?consumer_id=9&partition_id=0", tok); o["stored_offset"] != float64(1) {
		t.Fatalf("offset after the POST: %v", o)
	}
	// A GET commits nothing; a wait of 0 answers at once.
	other := "/streams/s/topics/t/messages/deferred?partition_id=0&consumer_id=10&kind=offset&value=0&count=10&max_wait=0s"
	h.do(t, "GET", other, tok, nil).ok(t, http.StatusOK, "deferred poll, wait 0").json(t, &got)
	if len(got.Messages) != 2 {
		t.Fatalf("wait 0: %d messages", len(got.Messages))
	}
	h.do(t, "GET", "/streams/s/topics/t/consumer-offsets?consumer_id=10&partition_id=0", tok, nil).
		fails(t, 404, 404, "", "offset after a GET")
	h.do(t, "GET", path+"&max_wait=11m", tok, nil).ok(t, http.StatusBadRequest, "a wait above 10 minutes")

	// The reply's positions; a continuation of another incarnation is 409.
	var pos struct {
		Incarnation  uint64  `json:"incarnation"`
		Continuation uint64  `json:"continuation"`
		Checkpoint   *uint64 `json:"checkpoint"`
	}
	one := "/streams/s/topics/t/messages/deferred?partition_id=0&consumer_id=10&kind=offset&value=0&count=1&max_wait=0s"
	h.do(t, "GET", one, tok, nil).ok(t, http.StatusOK, "positions").json(t, &pos)
	if pos.Incarnation == 0 || pos.Continuation != 1 || pos.Checkpoint == nil || *pos.Checkpoint != 0 {
		t.Fatalf("positions: %+v", pos)
	}
	from := fmt.Sprintf("/streams/s/topics/t/messages/deferred?partition_id=0&consumer_id=10&kind=offset&value=%d&count=10&max_wait=0s&incarnation=%d",
		pos.Continuation, pos.Incarnation)
	h.do(t, "GET", from, tok, nil).ok(t, http.StatusOK, "from the continuation").json(t, &pos)
	if pos.Continuation != 2 || pos.Checkpoint == nil || *pos.Checkpoint != 1 {
		t.Fatalf("from the continuation: %+v", pos)
	}
	h.do(t, "GET", fmt.Sprintf("%s&incarnation=%d", other, pos.Incarnation+1), tok, nil).
		ok(t, http.StatusConflict, "another incarnation")
	// HTTP has no grouped fetch: a reader keeps one deferred poll per partition.
	for _, p := range []string{"grouped", "fetch", "deferred/grouped"} {
		h.do(t, "GET", "/streams/s/topics/t/messages/"+p, tok, nil).ok(t, http.StatusNotFound, "a grouped fetch path")
	}
}
