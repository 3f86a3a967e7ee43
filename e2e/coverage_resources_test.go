package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// optionValue reads a topic option from the explicit, then the derived block.
func optionValue(t *testing.T, d wire.TopicDetails, key string) (wire.Option, string) {
	t.Helper()
	if o, ok := d.Topic.Explicit.Get(key); ok {
		return o, "explicit"
	}
	if o, ok := d.Topic.Derived.Get(key); ok {
		return o, "derived"
	}
	t.Fatalf("topic %s has no %s option (explicit %v, derived %v)", d.Topic.Name, key, d.Topic.Explicit, d.Topic.Derived)
	return wire.Option{}, ""
}

// A topic created without these options reads consumer_offset_durability
// "replicated" and the replication factor of cluster.default_replication_factor,
// whose own default "all" places it on every node.
// covers RES-36
func TestCovTopicOffsetDurabilityDefault(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "defaults", "t", 1)
	d, _, err := c.GetTopic(stream, topic)
	if err != nil {
		t.Fatal(err)
	}
	o, where := optionValue(t, d, wire.OptConsumerOffsetDurability)
	if string(o.Value) != "replicated" || where != "derived" {
		t.Errorf("consumer_offset_durability = %q (%s), want derived \"replicated\"", o.Value, where)
	}
}

// A topic created without replication_factor takes
// cluster.default_replication_factor: "all" by default, and the configured
// value when one is set.
// covers RES-33
func TestCovTopicReplicationFactorDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "all"},
		{map[string]string{"IGGY_CLUSTER_DEFAULT_REPLICATION_FACTOR": "1"}, "1"},
	} {
		s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: tc.env})
		c := s.root()
		stream, topic := createStreamTopic(t, c, "rf", "t", 1)
		d, _, err := c.GetTopic(stream, topic)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := optionValue(t, d, wire.OptReplicationFactor)
		got := string(o.Value)
		if o.Kind != wire.KindString {
			got = fmt.Sprint(o.Value[0])
		}
		if got != tc.want {
			t.Errorf("env %v: replication_factor %q (kind %d), want %q", tc.env, o.Value, o.Kind, tc.want)
		}
		s.stop()
	}
}

// replication_factor is fixed at creation: an update that sets it is refused
// with OptionNotUpdatable and changes nothing.
// covers RES-32
func TestCovReplicationFactorNotUpdatable(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	st, err := c.CreateStream("rf")
	if err != nil {
		t.Fatal(err)
	}
	stream := wire.NumericID(st.ID)
	d, err := c.CreateTopic(stream, "t", 1, wire.Options{{Key: wire.OptReplicationFactor, Kind: wire.KindString, Value: []byte("1")}})
	if err != nil {
		t.Fatalf("create with replication_factor 1: %v", err)
	}
	topic := wire.NumericID(d.Topic.ID)
	err = c.UpdateTopic(stream, topic, "", wire.Options{{Key: wire.OptReplicationFactor, Kind: wire.KindString, Value: []byte("all")}})
	wantCode(t, "update replication_factor", err, wire.OptionNotUpdatable)
	err = c.UpdateTopic(stream, topic, "", nil, wire.OptReplicationFactor)
	if err == nil {
		t.Error("reset of replication_factor accepted")
	}
	after, _, err := c.GetTopic(stream, topic)
	if err != nil {
		t.Fatal(err)
	}
	if o, where := optionValue(t, after, wire.OptReplicationFactor); where != "explicit" || !bytes.Equal(o.Value, []byte("1")) && !bytes.Equal(o.Value, []byte{1}) {
		t.Errorf("replication_factor after refused updates: %q (%s)", o.Value, where)
	}
}

// compression_algorithm is never applied: a gzip topic stores the payload as
// sent (the segment file holds its bytes verbatim, the batch header's
// reserved bytes stay zero, so no codec marker) and a poll returns it as sent.
// covers RES-16
func TestCovCompressionNotApplied(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	st, err := c.CreateStream("gz")
	if err != nil {
		t.Fatal(err)
	}
	stream := wire.NumericID(st.ID)
	d, err := c.CreateTopic(stream, "t", 1, wire.Options{{Key: wire.OptCompressionAlgorithm, Kind: wire.KindString, Value: []byte("gzip")}})
	if err != nil {
		t.Fatalf("create gzip topic: %v", err)
	}
	topic := wire.NumericID(d.Topic.ID)
	payload := bytes.Repeat([]byte("compress-me-if-you-dare "), 200) // very compressible
	msg := client.Message{ID: messageID(7, 1), Payload: payload}
	if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, []client.Message{msg}); err != nil {
		t.Fatalf("send: %v", err)
	}
	got := pollAll(t, c, stream, topic, 0)
	if len(got) != 1 || !bytes.Equal(got[0].Payload, payload) {
		t.Fatalf("polled %d messages; payload equal: %v", len(got), len(got) == 1 && bytes.Equal(got[0].Payload, payload))
	}
	s.stop()
	logs, _ := filepath.Glob(filepath.Join(s.cfg.dataDir, "streams", "*", "topics", "*", "partitions", "0", "*.log"))
	if len(logs) != 1 {
		t.Fatalf("segment files %v, want one", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, payload) {
		t.Error("the segment does not hold the payload verbatim")
	}
	if len(data) < 256 {
		t.Fatalf("segment of %d bytes", len(data))
	}
	if n := binary.LittleEndian.Uint32(data[48:]); n != 1 {
		t.Errorf("stored batch declares %d messages", n)
	}
	for i, b := range data[52:256] {
		if b != 0 {
			t.Fatalf("stored batch header byte %d is %#x: a codec marker?", 52+i, b)
		}
	}
}

// metadata.partitions_max caps the partitions of all topics together. A
// create that the committed partitions alone leave no room for gets the
// capacity error (TooManyPartitions), never 58, whether it creates a topic
// or adds partitions; a create that fits succeeds up to the cap.
// covers RES-39, RES-40
func TestCovPartitionsMax(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_METADATA_PARTITIONS_MAX": "4"}})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "capped", "a", 3)
	_, err := c.CreateTopic(stream, "b", 2, nil)
	wantCode(t, "topic past the cap", err, wire.TooManyPartitions)
	wantCode(t, "partitions past the cap", c.CreatePartitions(stream, topic, 2), wire.TooManyPartitions)
	if err := c.CreatePartitions(stream, topic, 1); err != nil {
		t.Fatalf("partition up to the cap: %v", err)
	}
	_, err = c.CreateTopic(stream, "c", 1, nil)
	wantCode(t, "topic at the cap", err, wire.TooManyPartitions)
	if err := c.DeletePartitions(stream, topic, 2); err != nil {
		t.Fatalf("delete partitions: %v", err)
	}
	if _, err := c.CreateTopic(stream, "d", 2, nil); err != nil {
		t.Fatalf("topic in the freed room: %v", err)
	}

	// The default, 0, is no cap: more partitions than any small cap.
	free := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	fc := free.root()
	fs, ft := createStreamTopic(t, fc, "free", "a", 1000)
	if err := fc.CreatePartitions(fs, ft, 1000); err != nil {
		t.Fatalf("2000 partitions without a cap: %v", err)
	}
}

// With nothing pending, a create that names a stream that does not exist
// gets the namespace error, below the partition cap and at it alike.
// covers RES-42
func TestCovCreateInMissingStream(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_METADATA_PARTITIONS_MAX": "2"}})
	c := s.root()
	_, err := c.CreateTopic(wire.NamedID("missing"), "t", 1, nil)
	wantStreamNotFound(t, "topic in a missing stream", err)
	_, err = c.CreateTopic(wire.NumericID(7), "t", 1, nil)
	wantCode(t, "topic in a missing stream id", err, wire.StreamIdNotFound)
	createStreamTopic(t, c, "full", "t", 2)
	_, err = c.CreateTopic(wire.NamedID("missing"), "u", 1, nil)
	wantStreamNotFound(t, "topic in a missing stream at the cap", err)
}

// wantStreamNotFound accepts either not-found code of a stream: the
// documents do not say which one a lookup by name gives.
func wantStreamNotFound(t *testing.T, what string, err error) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || (e.Code != wire.StreamIdNotFound && e.Code != wire.StreamNameNotFound) {
		t.Errorf("%s: got %v, want a stream not-found error (1009 or 1010)", what, err)
	}
}

// Creates that each fit the committed partitions but not each other: of two
// concurrent creates that together pass the cap, at most one commits; the
// other gets 58 (creates in flight leave no room) or, if the first has
// committed by then, the capacity error. The cap is never passed.
// covers RES-41
func TestCovPartitionsMaxInFlight(t *testing.T) {
	t.Parallel()
	const rounds = 20
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_METADATA_PARTITIONS_MAX": "2"}})
	a, b := s.root(), s.root()
	st, err := a.CreateStream("race")
	if err != nil {
		t.Fatal(err)
	}
	stream := wire.NumericID(st.ID)
	transient := 0
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		ids := make([]uint32, 2)
		for i, c := range []*client.Client{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := c.CreateTopic(stream, fmt.Sprintf("r%d-%d", round, i), 2, nil)
				errs[i], ids[i] = err, d.Topic.ID
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			var e *client.Error
			switch {
			case err == nil:
				won++
				if derr := a.DeleteTopic(stream, wire.NumericID(ids[i])); derr != nil {
					t.Fatalf("round %d: delete: %v", round, derr)
				}
			case errors.As(err, &e) && e.Code == wire.TransientNotAccepted:
				transient++
			case errors.As(err, &e) && e.Code == wire.TooManyPartitions:
			default:
				t.Fatalf("round %d: create: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of two racing creates committed (errors %v), want exactly one", round, won, errs)
		}
	}
	t.Logf("%d of %d rounds ended with 58", transient, rounds)
}

// GET /options/{scope} lists every key with the five flags updatable,
// resettable, secret, read_only and critical, set as the catalog says.
// covers RES-3
func TestCovOptionFlagsOverHTTP(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, nil)
	token := h.rootToken(t)
	flags := []string{"updatable", "resettable", "secret", "read_only", "critical"}
	want := map[string]map[string]bool{
		"topic/message_expiry":              {"updatable": true, "resettable": true},
		"topic/max_topic_size":              {"updatable": true, "resettable": true},
		"topic/compression_algorithm":       {},
		"topic/segment_size":                {},
		"stream/encryption_key":             {"secret": true, "critical": true},
		"stream/encryption_key_fingerprint": {"read_only": true},
	}
	for _, scope := range []string{"topic", "stream", "user"} {
		var specs []map[string]any
		h.do(t, "GET", "/options/"+scope, token, nil).ok(t, http.StatusOK, "options "+scope).json(t, &specs)
		for _, spec := range specs {
			key, _ := spec["key"].(string)
			for _, f := range flags {
				v, ok := spec[f].(bool)
				if !ok {
					t.Errorf("%s/%s: flag %s missing or not a boolean: %v", scope, key, f, spec[f])
					continue
				}
				if w, listed := want[scope+"/"+key]; listed && v != w[f] {
					t.Errorf("%s/%s: %s = %v, want %v", scope, key, f, v, w[f])
				}
			}
			delete(want, scope+"/"+key)
		}
	}
	for k := range want {
		if !strings.HasPrefix(k, "user/") {
			t.Errorf("catalog lacks %s", k)
		}
	}
}
