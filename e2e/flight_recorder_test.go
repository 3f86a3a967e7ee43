package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/flight"
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
	res, err := flight.Replay(bytes.NewReader(dump), flight.Options{Force: true, Check: true})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if !res.Complete || !res.Header.FromBoot || res.Hash != res.Header.Hash || res.Inputs < 100 {
		t.Fatalf("replay %+v of a dump with header %+v", res, res.Header)
	}
	t.Logf("replayed %d inputs, %d takes, hash %s = the server's", res.Inputs, res.Takes, res.Hash)
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
		created, err := admin.CreateConsumerGroup(stream, topic, "crew")
		if err != nil {
			t.Fatalf("create group: %v", err)
		}
		g := wire.NumericID(created.ID)
		if err := admin.JoinConsumerGroup(stream, topic, g); err != nil {
			t.Fatalf("join group: %v", err)
		}
		if _, _, err := admin.SyncConsumerGroup(stream, topic, g); err != nil {
			t.Fatalf("sync group: %v", err)
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
