package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/flight"
	"github.com/iggygo/iggy/flight/clients"
	"github.com/iggygo/iggy/wire"
)

// flightSecret is a password the workload sets; no dump may hold it.
const flightSecret = "Fl1ght-Recorder-Secret!"

// The flight recorder of the real binary: a mixed workload (metadata,
// sends, polls, logins by password and token, a consumer group), a kill
// and a restart, more of the same, then a dump on SIGUSR2. The dump holds
// neither the password nor the token, it replays in the flight package (as
// iggy-sim -replay does) to the very digests the server computed, Ready by
// Ready, and a build other than the server's is refused unless forced.
func TestFlightRecorderReplaysTheServer(t *testing.T) {
	dir := newDataDir(t)
	s := startServer(t, serverConfig{dataDir: dir, defaultRoot: true, env: map[string]string{
		"IGGY_DEBUG_FLIGHT_RECORDER_ENABLED":   "true",
		"IGGY_DEBUG_FLIGHT_RECORDER_RING_SIZE": "32 MiB",
	}})
	admin := s.root()
	stream, topic := createStreamTopic(t, admin, "flight", "events", 2)
	token := flightWorkload(t, s, admin, stream, topic, true)
	s.kill()
	s = s.restart()
	admin = s.root()
	flightWorkload(t, s, admin, stream, topic, false)
	if _, err := s.dial().LoginWithToken(token); err != nil {
		t.Fatalf("login with the token after the restart: %v", err)
	}
	dump := dumpBySignal(t, s, dir)
	for _, secret := range []string{flightSecret, token} {
		if bytes.Contains(dump, []byte(secret)) {
			t.Fatalf("the dump holds the secret %q", secret)
		}
	}
	if _, err := flight.Replay(bytes.NewReader(dump), flight.Options{Force: true}); err == nil || !strings.Contains(err.Error(), "-data") {
		t.Fatalf("a dump with poll reads by digest replayed without the data directory: %v", err)
	}
	hist := clients.NewHistory()
	res, err := flight.Replay(bytes.NewReader(dump), flight.Options{Force: true, Check: true, DataDir: dir, Clients: hist})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if !res.Complete || !res.Header.FromBoot || res.Hash != res.Header.Hash || res.Inputs < 100 {
		t.Fatalf("replay %+v of a dump with header %+v", res, res.Header)
	}
	t.Logf("replayed %d inputs, %d takes, hash %s = the server's", res.Inputs, res.Takes, res.Hash)
	checkFlightOracles(t, hist)
	if res.Header.Build != flight.Build() {
		if _, err := flight.Replay(bytes.NewReader(dump), flight.Options{}); err == nil || !strings.Contains(err.Error(), "build") {
			t.Fatalf("a dump of build %q replayed under %q without force: %v", res.Header.Build, flight.Build(), err)
		}
	}
}

// flightWorkload drives one process: sends, polls, a user who logs in by
// password, a personal access token, a consumer group. It returns the
// token it made (when first).
func flightWorkload(t *testing.T, s *server, admin *client.Client, stream, topic wire.Identifier, first bool) string {
	t.Helper()
	for b := range 20 {
		msgs := make([]client.Message, 10)
		for i := range msgs {
			msgs[i] = client.Message{ID: messageID(1, uint64(b*10+i+1)), Payload: bytes.Repeat([]byte{byte(b)}, 100+b)}
		}
		p := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: uint32(b % 2)}
		if _, err := admin.SendMessages(stream, topic, p, msgs); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	pollAll(t, admin, stream, topic, 0)
	flightOffsets(t, admin, stream, topic)
	if _, err := admin.GetStats(); err != nil {
		t.Fatalf("stats: %v", err)
	}
	user := "pilot"
	if !first {
		user = "copilot"
	}
	if _, err := admin.CreateUser(user, flightSecret, wire.UserStatusActive, nil); err != nil {
		t.Fatalf("create user: %v", err)
	}
	var token string
	if first {
		var err error
		if token, err = admin.CreatePersonalAccessToken("flight", 0); err != nil {
			t.Fatalf("create token: %v", err)
		}
		if _, err := s.dial().LoginWithToken(token); err != nil {
			t.Fatalf("login with token: %v", err)
		}
		flightGroup(t, admin, stream, topic)
	} else {
		// The restarted server's admin session is no member: its poll
		// gets the re-sync sentinel.
		p := uint32(0)
		if _, _, err := admin.PollMessages(client.GroupConsumer(wire.NamedID("crew")), stream, topic, &p, wire.PollNext, 0, 50, false); err != nil {
			t.Fatalf("group poll of a non-member: %v", err)
		}
	}
	if err := s.login(user, flightSecret).Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := s.dial().LoginUser(user, "wrong-password"); err == nil {
		t.Fatalf("a wrong password logged in")
	}
	return token
}

// flightGroup creates a consumer group, joins it and polls each assigned
// partition with auto-commit, by the group's id and by its name.
func flightGroup(t *testing.T, admin *client.Client, stream, topic wire.Identifier) {
	t.Helper()
	created, err := admin.CreateConsumerGroup(stream, topic, "crew")
	if err != nil {
		t.Fatalf("create group: %v", err)
	}
	g := wire.NumericID(created.ID)
	if err := admin.JoinConsumerGroup(stream, topic, g); err != nil {
		t.Fatalf("join group: %v", err)
	}
	a, _, err := admin.SyncConsumerGroup(stream, topic, g)
	if err != nil || len(a.Partitions) == 0 {
		t.Fatalf("sync group: %+v, %v", a, err)
	}
	for _, id := range []wire.Identifier{g, wire.NamedID("crew")} {
		for _, p := range a.Partitions {
			if _, _, err := admin.PollMessages(client.GroupConsumer(id), stream, topic, &p, wire.PollNext, 0, 50, true); err != nil {
				t.Fatalf("group poll of partition %d by %v: %v", p, id, err)
			}
		}
	}
}

// dumpBySignal sends SIGUSR2 and returns the dump the server writes.
func dumpBySignal(t *testing.T, s *server, dataDir string) []byte {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatalf("SIGUSR2: %v", err)
	}
	deadline := time.Now().Add(requestTimeout)
	for time.Now().Before(deadline) {
		if strings.Contains(s.stderr.String(), "flight recorder dumped") {
			files, _ := filepath.Glob(filepath.Join(dataDir, "flight_recorder", "flight-*.trace"))
			if len(files) == 1 {
				dump, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				return dump
			}
		}
		time.Sleep(readyPollPeriod)
	}
	t.Fatalf("no dump after SIGUSR2; stderr:\n%s", s.stderr.String())
	return nil
}

// A dump on demand: DumpFlightRecorder (19) over TCP and POST
// /debug/flight-recorder/dump over HTTP each write a dump under dump_path
// and answer its name, and the dump replays. Both need manage_servers; a
// server without the recorder answers 5 FeatureUnavailable.
func TestFlightRecorderDumpOnDemand(t *testing.T) {
	h := startHTTPServer(t, map[string]string{"IGGY_DEBUG_FLIGHT_RECORDER_ENABLED": "true",
		"IGGY_DEBUG_FLIGHT_RECORDER_RING_SIZE": "8 MiB"})
	dir := filepath.Join(h.cfg.dataDir, "flight_recorder")
	admin := h.root()
	name, err := admin.DumpFlightRecorder()
	if err != nil {
		t.Fatalf("DumpFlightRecorder: %v", err)
	}
	dump, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("the dump named %q: %v", name, err)
	}
	if _, err := flight.Replay(bytes.NewReader(dump), flight.Options{Force: true, DataDir: h.cfg.dataDir}); err != nil {
		t.Fatalf("replay of the dump: %v", err)
	}
	var got struct{ File string }
	h.do(t, "POST", "/debug/flight-recorder/dump", h.rootToken(t), nil).ok(t, http.StatusOK, "dump over HTTP").json(t, &got)
	if _, err := os.Stat(filepath.Join(dir, got.File)); err != nil || got.File == name || filepath.Base(got.File) != got.File {
		t.Fatalf("the HTTP dump %q (after %q): %v", got.File, name, err)
	}
	if _, err := admin.CreateUser("watcher", flightSecret, wire.UserStatusActive, nil); err != nil {
		t.Fatalf("create user: %v", err)
	}
	_, err = h.login("watcher", flightSecret).DumpFlightRecorder()
	wantCode(t, "a dump without manage_servers", err, wire.Unauthorized)
	tok := h.httpLogin(t, "watcher", flightSecret).AccessToken.Token
	h.do(t, "POST", "/debug/flight-recorder/dump", tok, nil).fails(t, http.StatusForbidden, uint32(wire.Unauthorized), "", "HTTP dump without manage_servers")
	off := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	_, err = off.root().DumpFlightRecorder()
	wantCode(t, "a dump with the recorder off", err, wire.FeatureUnavailable)
}

// One node of a three-node replica set records too: its dump, taken on
// demand after replicated metadata, sends and polls, replays to the
// digests it computed, peer messages included, on a backup and on the
// node the client reached first.
func TestFlightRecorderReplaysAClusterNode(t *testing.T) {
	tc := startClusterEnv(t, 3, map[string]string{"IGGY_DEBUG_FLIGHT_RECORDER_ENABLED": "true",
		"IGGY_DEBUG_FLIGHT_RECORDER_RING_SIZE": "16 MiB"})
	c0 := tc.node(0)
	s, err := c0.CreateStream("flight")
	if err != nil {
		t.Fatalf("create stream: %v", err)
	}
	if _, err := c0.CreateTopic(wire.NumericID(s.ID), "events", 2, nil); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	stream, topic := wire.NumericID(s.ID), wire.NamedID("events")
	k := tc.client()
	for b := range 10 {
		msgs := []client.Message{{ID: messageID(2, uint64(b+1)), Payload: bytes.Repeat([]byte{byte(b)}, 200)}}
		tc.eventually("send", func() error { _, err := k.SendMessages(stream, topic, uint32(b%2), msgs); return err })
	}
	for p := range uint32(2) {
		tc.eventually("poll", func() error {
			_, msgs, err := k.PollMessages(client.Consumer(1), stream, topic, p, wire.PollOffset, 0, 100, false)
			if err == nil && len(msgs) != 5 {
				err = fmt.Errorf("polled %d of 5", len(msgs))
			}
			return err
		})
	}
	for _, id := range []int{0, 1} {
		name, err := tc.node(id).DumpFlightRecorder()
		if err != nil {
			t.Fatalf("dump node %d: %v", id, err)
		}
		data := tc.nodes[id].cfg.dataDir
		dump, err := os.ReadFile(filepath.Join(data, "flight_recorder", name))
		if err != nil {
			t.Fatal(err)
		}
		res, err := flight.Replay(bytes.NewReader(dump), flight.Options{Force: true, DataDir: data})
		if err != nil || !res.Complete || res.Hash != res.Header.Hash {
			t.Fatalf("replay of node %d: %+v, %v", id, res, err)
		}
		t.Logf("node %d: replayed %d inputs, %d takes", id, res.Inputs, res.Takes)
	}
}

// flightOffsets stores and reads back a consumer's offsets, for the
// replay's consumer-offset oracle to judge.
func flightOffsets(t *testing.T, admin *client.Client, stream, topic wire.Identifier) {
	t.Helper()
	for _, off := range []uint64{3, 7, 5} {
		if err := admin.StoreOffset(client.Consumer(77), stream, topic, 1, off); err != nil {
			t.Fatalf("store offset: %v", err)
		}
		if o, found, err := admin.GetOffset(client.Consumer(77), stream, topic, 1); err != nil || !found || o.StoredOffset != off {
			t.Fatalf("get offset after storing %d: %+v %v %v", off, o, found, err)
		}
	}
}

// flightAppendsMin and flightReadsMin are how much of the second process's
// workload the replay's client history must hold for its oracle verdicts to
// mean something (vacuity): it sends 20 batches, polls them back and
// reads a consumer's offsets three times.
const (
	flightAppendsMin = 20
	flightReadsMin   = 1
	flightGetsMin    = 3
)

// checkFlightOracles: the one-node oracles, over the client history the
// replay rebuilt from the recorded frames and the replayed replies, find
// nothing, and had appends and polls that returned messages to judge.
func checkFlightOracles(t *testing.T, hist *clients.History) {
	t.Helper()
	s := hist.Stats()
	verdicts := hist.Judge()
	if len(verdicts) != 4 {
		t.Fatalf("oracle verdicts %+v", verdicts)
	}
	for _, v := range verdicts {
		if v.Result != "ok" {
			t.Errorf("oracle %s: %s\n%s", v.Oracle, v.Result, v.Detail)
		}
	}
	if s.Appends < flightAppendsMin || s.ReadsWithMessages < flightReadsMin || s.Gets < flightGetsMin {
		t.Fatalf("vacuous: the clients' history holds %+v", s)
	}
	t.Logf("oracles ok over %+v", s)
}
