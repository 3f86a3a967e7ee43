package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Issue 11, item 1, as reported: a topic of 1 MiB segments, 5,500 messages,
// the server stopped, a sealed segment truncated to 500,000 bytes, a
// restart. The restart used to cut the file, delete the intact later
// segments (2,100 acknowledged messages), move the current offset back and
// acknowledge the next send at an offset already acknowledged, logging
// nothing. Now the damaged file and every later one are kept as found, the
// damage is logged with path and byte range, the current offset stays, the
// next send gets a fresh offset, the lost offsets are refused with
// SegmentNotFound and the later segments read back.
// covers STOR-7
func TestTruncatedSealedSegmentKeepsLaterData(t *testing.T) {
	const sent, batch, payloadBytes = 5500, 100, 1000
	dataDir := newDataDir(t)
	s := startServer(t, serverConfig{dataDir: dataDir, defaultRoot: true})
	c := s.root()
	st, err := c.CreateStream("damaged")
	if err != nil {
		t.Fatalf("create stream: %v", err)
	}
	stream := wire.NumericID(st.ID)
	d, err := c.CreateTopic(stream, "events", 1, wire.Options{uint64Entry(wire.OptSegmentSize, 1<<20)})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	topic := wire.NumericID(d.Topic.ID)
	one := wire.Partitioning{Kind: wire.PartitioningPartitionID}
	payload := make([]byte, payloadBytes)
	for n := 0; n < sent; n += batch {
		msgs := make([]client.Message, batch)
		for i := range msgs {
			msgs[i] = client.Message{ID: messageID(7, uint64(n+i)), Payload: payload}
		}
		if _, err := c.SendMessages(stream, topic, one, msgs); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	c.Close()
	s.stop()

	dir := filepath.Join(dataDir, "streams", strconv.FormatUint(uint64(st.ID), 10), "topics",
		strconv.FormatUint(uint64(d.Topic.ID), 10), "partitions", "0")
	starts := segmentStarts(t, dir)
	if len(starts) < 4 {
		t.Fatalf("want at least 4 segments of 1 MiB, found %v", starts)
	}
	damaged := starts[len(starts)-3] // two segments follow it
	later := starts[len(starts)-2:]
	sizes := map[string]int64{}
	for _, start := range later {
		for _, ext := range []string{".log", ".index"} {
			sizes[segmentFile(dir, start, ext)] = fileSize(t, segmentFile(dir, start, ext))
		}
	}
	damagedPath := segmentFile(dir, damaged, ".log")
	if err := os.Truncate(damagedPath, 500_000); err != nil {
		t.Fatal(err)
	}

	s = s.restart()
	c = s.root()
	defer c.Close()
	if got := fileSize(t, damagedPath); got != 500_000 {
		t.Errorf("the damaged segment was changed: %d bytes, want 500000 as found", got)
	}
	for path, size := range sizes {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("an intact later segment was deleted: %v", err)
		}
		if got := fileSize(t, path); got != size {
			t.Errorf("%s: %d bytes, was %d", path, got, size)
		}
	}
	details, found, err := c.GetTopic(stream, topic)
	if err != nil || !found || len(details.Partitions) != 1 {
		t.Fatalf("get topic: %+v %v %v", details, found, err)
	}
	if cur := details.Partitions[0].CurrentOffset; cur != sent-1 {
		t.Errorf("current offset %d after restart, want %d", cur, sent-1)
	}
	base, err := c.SendMessages(stream, topic, one, []client.Message{{ID: messageID(8, 0), Payload: []byte("after")}})
	if err != nil || base != sent {
		t.Fatalf("send after restart: offset %d, %v; want a fresh offset %d", base, err, sent)
	}
	partition := uint32(0)
	_, _, err = c.PollMessages(client.Consumer(1), stream, topic, &partition, wire.PollOffset, later[0]-1, 10, false)
	wantCode(t, "poll of an offset the damaged segment lost", err, wire.SegmentNotFound)
	_, got, err := c.PollMessages(client.Consumer(1), stream, topic, &partition, wire.PollOffset, later[0], 10, false)
	if err != nil || len(got) != 10 || got[0].Offset != later[0] || got[0].ID != messageID(7, later[0]) {
		t.Fatalf("poll of the segment after the damaged one: %d messages, %v", len(got), err)
	}
	out := s.stdout.String() + s.stderr.String()
	if !strings.Contains(out, "damaged segment") || !strings.Contains(out, filepath.Base(damagedPath)) ||
		!strings.Contains(out, "..500000") || !strings.Contains(out, fmt.Sprintf("..%d are lost", later[0]-1)) {
		t.Errorf("the damage is not logged with its path and byte range:\n%s", out)
	}
}

// segmentStarts lists the start offsets of a partition's .log files, ascending.
func segmentStarts(t *testing.T, dir string) []uint64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var starts []uint64
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".log"); ok {
			if n, err := strconv.ParseUint(name, 10, 64); err == nil {
				starts = append(starts, n)
			}
		}
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	return starts
}

func segmentFile(dir string, start uint64, ext string) string {
	return filepath.Join(dir, fmt.Sprintf("%020d%s", start, ext))
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// Issue 11, item 8: a byte that rots at rest makes its batch unreadable;
// every poll of it gets 4011, and the damage is logged once with the file
// and byte range, not per poll and not never.
func TestRottedByteIsLoggedOnce(t *testing.T) {
	dataDir := newDataDir(t)
	s := startServer(t, serverConfig{dataDir: dataDir, defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "rot", "events", 1)
	one := wire.Partitioning{Kind: wire.PartitioningPartitionID}
	for i := range 20 { // one write and one index entry each: boot checks only the last
		if _, err := c.SendMessages(stream, topic, one, []client.Message{{ID: messageID(9, uint64(i)), Payload: make([]byte, 100)}}); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	c.Close()
	s.stop()
	dir := filepath.Join(dataDir, "streams", "0", "topics", "0", "partitions", "0")
	path := segmentFile(dir, 0, ".log")
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img[200] ^= 0x10 // in the first record's message
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}
	s = s.restart()
	c = s.root()
	defer c.Close()
	partition := uint32(0)
	for range 3 {
		_, _, err := c.PollMessages(client.Consumer(1), stream, topic, &partition, wire.PollOffset, 0, 1, false)
		wantCode(t, "poll of the rotted record", err, wire.CannotReadMessage)
	}
	_, got, err := c.PollMessages(client.Consumer(1), stream, topic, &partition, wire.PollOffset, 1, 100, false)
	if err != nil || len(got) != 19 {
		t.Fatalf("poll after the rotted record: %d messages, %v", len(got), err)
	}
	line := "damaged segment streams/0/topics/0/partitions/0/00000000000000000000.log: bytes 0.." // relative to the data directory
	if !eventually(func() bool { return strings.Contains(s.stderr.String()+s.stdout.String(), line) }) {
		t.Fatalf("the rotted record is not logged:\n%s", s.stderr)
	}
	if n := strings.Count(s.stderr.String()+s.stdout.String(), "damaged segment"); n != 1 {
		t.Fatalf("the damage is logged %d times, want once:\n%s", n, s.stderr)
	}
}
