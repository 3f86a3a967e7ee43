package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Figures of the never-reading client test.
const (
	flowStall          = 2 * time.Second // message_bus.client_write_stall_timeout here
	flowStallMargin    = 2 * time.Second // a loaded CI machine; the cut is at the stall, give or take a write
	flowMessageBytes   = 16 << 10
	flowMessages       = 512 // 8 MiB in the partition: a poll of every message answers 8 MiB
	flowSmallPolls     = 40  // of about 1 MiB each: under the reply queue's byte cap, so the stall ends them
	flowSmallPollCount = 64
	flowBigPolls       = 200 // of 8 MiB each: 1.6 GiB of replies, were they all queued
	// flowBigCutPollsMin is how many 8 MiB replies fill the reply queue's
	// bytes (transport.ReplyQueueBytesMax, 64 MiB): the server has read at
	// least these when the byte cap cuts the client.
	flowBigCutPollsMin = 8
	flowRSSGrowthMax   = 256 << 10
)

// flowFill creates stream flow, topic events with one partition and
// writes flowMessages messages of flowMessageBytes to it.
func flowFill(t *testing.T, admin *client.Client) (wire.Identifier, wire.Identifier) {
	t.Helper()
	stream, topic := createStreamTopic(t, admin, "flow", "events", 1)
	msgs := make([]client.Message, flowMessages/8)
	for i := range msgs {
		msgs[i] = client.Message{Payload: make([]byte, flowMessageBytes)}
	}
	for range 8 {
		if _, err := admin.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, msgs); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	return stream, topic
}

// flowPolls writes polls polls of the whole partition, count messages
// each, down c, reads nothing, and returns how many it wrote. With cutOK a
// write that finds the connection reset or closed ends the writing: the
// server may cut a client that never reads before it has sent every poll
// (it answers them as they arrive), and on a loaded machine it did
// (the CI run of d6beda8, a write reset after the cut). Without cutOK any
// write error fails the test.
func flowPolls(t *testing.T, c net.Conn, session uint64, stream, topic wire.Identifier, polls int, count uint32, cutOK bool) int {
	t.Helper()
	q := wire.PollMessagesRequest{Consumer: client.Consumer(1), StreamID: stream, TopicID: topic,
		Partition: wire.OptionalPartition{Given: true}, Strategy: wire.PollingStrategy{Kind: wire.PollOffset}, Count: count}
	var w wire.Writer
	q.Encode(&w)
	h, _ := wire.StampRequest(wire.U128{Lo: session}, wire.OpNonReplicated, wire.CmdPollMessages, 1, session)
	frame := append(h.Bytes(len(w.Buf)), w.Buf...)
	for i := range polls {
		if _, err := c.Write(frame); err != nil {
			if cutOK && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
				return i
			}
			t.Fatalf("send poll %d of %d: %v", i+1, polls, err)
		}
	}
	return polls
}

// connectionsWithin waits up to limit for the server to count want
// connections (GetStats, as admin sees them) and returns how long it took.
func connectionsWithin(t *testing.T, admin *client.Client, want uint32, limit time.Duration) (time.Duration, bool) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		st, err := admin.GetStats()
		if err != nil {
			t.Fatalf("get stats: %v", err)
		}
		if st.ClientsCount == want {
			return time.Since(start), true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return limit, false
}

// A client that pipelines polls and never reads its socket: with 40 polls
// of about 1 MiB the replies fit the reply queue's bytes, the writer blocks
// on the full socket, and the reply it holds has waited the stall timeout
// when the connection is closed (issue 15 saw it kept 75 s with 3.8 MB
// queued); with 200 polls of 8 MiB the queue's byte cap closes it at once
// (issue 15 saw 1.66 GB buffered for 97 s). The server's RSS grows by a
// bounded amount either way, and an admin connection is served meanwhile.
// covers FLOW-1, FLOW-2, FLOW-4
func TestNeverReadingClientIsCutOff(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: map[string]string{
		"IGGY_MESSAGE_BUS_CLIENT_WRITE_STALL_TIMEOUT": "2 s"}})
	admin := s.root()
	stream, topic := flowFill(t, admin)
	pid := s.cmd.Process.Pid
	rssBefore := vmRSSKiB(t, pid)

	var stalled, capped time.Duration
	var greedySent int
	peak := sampleRSS(t, pid, func() {
		slow := rawDial(t, s.addr)
		flowPolls(t, slow, rawLogin(t, slow, 0xf10a), stream, topic, flowSmallPolls, flowSmallPollCount, false)
		var ok bool
		if stalled, ok = connectionsWithin(t, admin, 1, flowStall+flowStallMargin); !ok {
			t.Errorf("a client that never read %d polls was still connected %v later (stall timeout %v)",
				flowSmallPolls, flowStall+flowStallMargin, flowStall)
		}
		greedy := rawDial(t, s.addr)
		if greedySent = flowPolls(t, greedy, rawLogin(t, greedy, 0xf10b), stream, topic, flowBigPolls, flowMessages, true); greedySent < flowBigCutPollsMin {
			t.Errorf("the server cut the greedy client after %d polls of 8 MiB, before their replies could fill the reply queue's bytes (%d)",
				greedySent, flowBigCutPollsMin)
		}
		if capped, ok = connectionsWithin(t, admin, 1, flowStall+flowStallMargin); !ok {
			t.Errorf("a client that never read %d polls of 8 MiB was still connected %v later", flowBigPolls, flowStall+flowStallMargin)
		}
	})
	if err := admin.Ping(); err != nil {
		t.Fatalf("the admin connection after the cut: %v", err)
	}
	t.Logf("%d polls of ~1 MiB unread: cut %v after the last was sent (stall timeout %v)", flowSmallPolls, stalled.Round(time.Millisecond), flowStall)
	t.Logf("%d polls of 8 MiB unread (%d sent before the cut): cut %v after the last was sent", flowBigPolls, greedySent, capped.Round(time.Millisecond))
	t.Logf("server RSS: before %d KiB, peak %d KiB (growth %d KiB, bound %d KiB)", rssBefore, peak, peak-rssBefore, flowRSSGrowthMax)
	if stalled < flowStall/2 {
		t.Errorf("the slow reader was cut after %v, well before the stall timeout %v", stalled, flowStall)
	}
	if peak-rssBefore > flowRSSGrowthMax {
		t.Errorf("server RSS grew by %d KiB (bound %d KiB)", peak-rssBefore, flowRSSGrowthMax)
	}
}

// Over HTTP a response that the client stops reading gets the write stall
// timeout from its first byte: a poll of 8 MiB (about 10 MB of JSON, more
// than the socket buffers hold) that the client leaves unread for the stall
// timeout and a little is cut off, so reading it afterwards ends early.
// covers FLOW-4
func TestNeverReadingHTTPClientIsCutOff(t *testing.T) {
	h := startHTTPServer(t, map[string]string{"IGGY_MESSAGE_BUS_CLIENT_WRITE_STALL_TIMEOUT": "2 s"})
	flowFill(t, h.root())
	token := h.rootToken(t)
	c := rawDial(t, strings.TrimPrefix(h.base, "http://"))
	req := fmt.Sprintf("GET /streams/flow/topics/events/messages?partition_id=0&kind=offset&value=0&count=%d HTTP/1.1\r\n"+
		"Host: e2e\r\nAuthorization: Bearer %s\r\n\r\n", flowMessages, token)
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatalf("send the poll: %v", err)
	}
	time.Sleep(flowStall + flowStallMargin)
	_ = c.SetReadDeadline(time.Now().Add(requestTimeout))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read the response head: %v", err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil {
		t.Fatalf("a response left unread for %v arrived whole (%d bytes, status %d): not cut at the stall timeout %v",
			flowStall+flowStallMargin, n, resp.StatusCode, flowStall)
	}
	t.Logf("status %d, %d of %d body bytes read after the stall: %v", resp.StatusCode, n, resp.ContentLength, err)
}

// The regression of the CI failure of d6beda8: the server cut the greedy
// client (as it should) while the client was still writing its polls, and
// the write's reset failed the test. Here a peer that closes with the polls
// unread (a reset) stands for the server; flowPolls must stop at the cut.
func TestFlowPollsStopAtTheCut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 1)
		_, _ = c.Read(buf) // leaves the rest unread: closing then resets
		_ = c.Close()
	}()
	c := rawDial(t, l.Addr().String())
	if sent := flowPolls(t, c, 1, wire.NumericID(1), wire.NumericID(1), 1<<20, 1, true); sent == 1<<20 {
		t.Fatalf("all %d polls were written to a peer that reset the connection", sent)
	}
}
