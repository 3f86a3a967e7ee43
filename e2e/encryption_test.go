package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/wire"
)

// encryptedServer starts a server with encryption enabled under a fresh
// server key and returns it with the key.
func encryptedServer(t *testing.T, dataDir string, env map[string]string) (*server, []byte) {
	t.Helper()
	key := make([]byte, streamkey.KeyBytes)
	_, _ = rand.Read(key)
	all := map[string]string{"IGGY_ENCRYPTION_ENABLED": "true", "IGGY_ENCRYPTION_KEY": base64.StdEncoding.EncodeToString(key)}
	for k, v := range env {
		all[k] = v
	}
	return startServer(t, serverConfig{dataDir: dataDir, defaultRoot: true, env: all}), key
}

// grepDataDir fails the test when any file under dir (but not below a
// directory named skip) holds needle.
func grepDataDir(t *testing.T, dir string, needle []byte, skip string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && skip != "" && d.Name() == skip {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, needle) {
			t.Errorf("%s holds %q in the clear", path, needle)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// streamOption reads one option of a stream as the read route shows it.
func streamOption(t *testing.T, c *client.Client, id wire.Identifier, key string) (string, bool) {
	t.Helper()
	d, found, err := c.GetStream(id)
	if err != nil || !found {
		t.Fatalf("get stream %v: %v (found %v)", id, err, found)
	}
	o, ok := d.Stream.Options.Get(key)
	return string(o.Value), ok
}

// A stream created on a server with encryption enabled gets a server key:
// its payloads and headers are nowhere in the data directory in the clear,
// they poll back intact before and after a restart, and the read route
// shows the key's source and fingerprints but never the key. A client's
// own key is taken too, and reported as the stream's. No key is in the
// data directory (journal, image, current_config.toml, a flight recorder
// dump) or the server's output.
// covers ENC-1 ENC-3 ENC-4 ENC-5 ENC-6 ENC-8 ENC-12 ENC-13 ENC-14 ENC-15 ENC-16
func TestEncryptedStreamAtRest(t *testing.T) {
	dir := newDataDir(t)
	s, serverKey := encryptedServer(t, dir, map[string]string{"IGGY_DEBUG_FLIGHT_RECORDER_ENABLED": "true", "IGGY_DEBUG_FLIGHT_RECORDER_RING_SIZE": "4 MiB"})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "sealed", "t", 1)
	payload := []byte("PAYLOAD-IN-CLEAR-0123456789")
	header := []byte("HEADER-IN-CLEAR")
	msgs := []client.Message{{Payload: payload, Headers: map[string]client.HeaderValue{"h": {Kind: wire.KindString, Value: header}}}}
	if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}, msgs); err != nil {
		t.Fatalf("send: %v", err)
	}
	checkPolled := func(c *client.Client) {
		t.Helper()
		got := pollAll(t, c, stream, topic, 0)
		if len(got) != 1 || !bytes.Equal(got[0].Payload, payload) || !bytes.Contains(got[0].Headers, header) {
			t.Fatalf("polled %+v", got)
		}
	}
	checkPolled(c)
	if src, _ := streamOption(t, c, stream, wire.OptEncryptionKeySource); src != "server" {
		t.Fatalf("key source %q, want server", src)
	}
	if kek, _ := streamOption(t, c, stream, wire.OptEncryptionKEKFingerprint); kek != streamkey.Fingerprint(serverKey) {
		t.Fatalf("kek fingerprint %q, want %q", kek, streamkey.Fingerprint(serverKey))
	}
	if fp, _ := streamOption(t, c, stream, wire.OptEncryptionKeyFingerprint); len(fp) != 16 {
		t.Fatalf("key fingerprint %q", fp)
	}
	if _, shown := streamOption(t, c, stream, wire.OptEncryptionKey); shown {
		t.Fatal("the read route shows the stream key")
	}
	own := bytes.Repeat([]byte{0x5a}, streamkey.KeyBytes)
	st, err := c.CreateStreamWithOptions("own-key", wire.Options{{Key: wire.OptEncryptionKey, Kind: wire.KindRaw, Value: own}})
	if err != nil {
		t.Fatalf("create with a client key: %v", err)
	}
	if src, _ := streamOption(t, c, wire.NumericID(st.ID), wire.OptEncryptionKeySource); src != "stream" {
		t.Fatalf("client key source %q", src)
	}
	if fp, _ := streamOption(t, c, wire.NumericID(st.ID), wire.OptEncryptionKeyFingerprint); fp != streamkey.Fingerprint(own) {
		t.Fatalf("client key fingerprint %q", fp)
	}
	dumpBySignal(t, s, dir)
	s.stop()
	// The data directory holds the segments, the metadata journal and
	// image, current_config.toml and the flight recorder's dump.
	b64 := base64.StdEncoding.EncodeToString
	// A dump holds what clients sent, payloads included (README says so);
	// it must hold no key.
	grepDataDir(t, dir, payload, "flight_recorder")
	grepDataDir(t, dir, header, "flight_recorder")
	for _, secret := range [][]byte{own, []byte(b64(own)), serverKey, []byte(b64(serverKey))} {
		grepDataDir(t, dir, secret, "")
		if logs := s.stdout.String() + s.stderr.String(); strings.Contains(logs, string(secret)) {
			t.Errorf("the server's output holds %q", secret)
		}
	}
	s = s.restart()
	checkPolled(s.root())
}

// Without a server key a client key is refused with 4106, and a key of the
// wrong length with 4042.
// covers ENC-7 ENC-10
func TestClientKeyWithoutServerKey(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	_, err := c.CreateStreamWithOptions("k", wire.Options{{Key: wire.OptEncryptionKey, Kind: wire.KindRaw, Value: make([]byte, 32)}})
	wantCode(t, "client key without a server key", err, wire.StreamEncryptionUnavailable)
	_, err = c.CreateStreamWithOptions("k31", wire.Options{{Key: wire.OptEncryptionKey, Kind: wire.KindRaw, Value: make([]byte, 31)}})
	wantCode(t, "a 31-byte key", err, wire.InvalidOptionValue)
}

// A node restarted with another key, or with none, refuses to boot and
// names the stream and the fingerprints on both sides.
// covers ENC-16 ENC-17
func TestBootRefusesUnopenableStreamKeys(t *testing.T) {
	dir := newDataDir(t)
	s, key := encryptedServer(t, dir, nil)
	createStreamTopic(t, s.root(), "locked", "t", 1)
	s.stop()
	other := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, streamkey.KeyBytes))
	for _, env := range []map[string]string{
		{"IGGY_ENCRYPTION_KEY": other},
		{},
	} {
		cfg := serverConfig{dataDir: dir, defaultRoot: true, env: env}
		next := launch(t, cfg, freeAddr(t))
		if code := next.waitExit(); code == 0 {
			t.Fatalf("booted with %v", env)
		}
		out := next.stdout.String() + next.stderr.String()
		if !bytes.Contains([]byte(out), []byte("locked")) || !bytes.Contains([]byte(out), []byte(streamkey.Fingerprint(key))) {
			t.Fatalf("the refusal does not name the stream and its key's fingerprint:\n%s", out)
		}
	}
}

// waitKEKs polls a stream's kek fingerprints until they are want.
func waitKEKs(t *testing.T, c *client.Client, id wire.Identifier, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := streamOption(t, c, id, wire.OptEncryptionKEKFingerprint)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kek fingerprints %q, want %q", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The two-phase rotation with a restart between phases: phase 1 wraps
// every stream under the new key too (a stream created then is wrapped
// under both), phase 2 drops the old wraps, and messages written before
// and after read back throughout, as data is never re-encrypted; without a
// retired fingerprint nothing is dropped.
// covers ENC-19 ENC-20 ENC-22 ENC-23 ENC-24 ENC-25
func TestKeyRotationTwoPhases(t *testing.T) {
	dir := newDataDir(t)
	s, oldKey := encryptedServer(t, dir, nil)
	c := s.root()
	stream, topic := createStreamTopic(t, c, "rotated", "t", 1)
	part := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}
	send := func(c *client.Client, p string) {
		t.Helper()
		if _, err := c.SendMessages(stream, topic, part, []client.Message{{Payload: []byte(p)}}); err != nil {
			t.Fatalf("send %s: %v", p, err)
		}
	}
	send(c, "before")
	s.stop()
	newKey := bytes.Repeat([]byte{0x42}, streamkey.KeyBytes)
	oldFP, newFP := streamkey.Fingerprint(oldKey), streamkey.Fingerprint(newKey)
	b64 := base64.StdEncoding.EncodeToString
	phase := func(env map[string]string) *server {
		env["IGGY_ENCRYPTION_ENABLED"] = "true"
		env["IGGY_ENCRYPTION_KEY"] = b64(newKey)
		return startServer(t, serverConfig{dataDir: dir, defaultRoot: true, env: env})
	}
	s = phase(map[string]string{"IGGY_ENCRYPTION_PREVIOUS_KEYS": "[" + b64(oldKey) + "]"})
	c = s.root()
	waitKEKs(t, c, stream, oldFP+","+newFP)
	late, err := c.CreateStream("phase-one")
	if err != nil {
		t.Fatal(err)
	}
	if kek, _ := streamOption(t, c, wire.NumericID(late.ID), wire.OptEncryptionKEKFingerprint); kek != newFP+","+oldFP {
		t.Fatalf("a stream created in phase 1 is wrapped under %q", kek)
	}
	send(c, "during")
	if !strings.Contains(s.stdout.String()+s.stderr.String(), "key rotation: rewrapping") {
		t.Error("phase 1 logged no rewrapping sweep")
	}
	s.stop()
	s = phase(map[string]string{"IGGY_ENCRYPTION_RETIRED_KEK_FINGERPRINTS": "[" + oldFP + "]"})
	c = s.root()
	waitKEKs(t, c, stream, newFP)
	waitKEKs(t, c, wire.NumericID(late.ID), newFP)
	send(c, "after")
	s.stop()
	s = phase(map[string]string{})
	got := pollAll(t, s.root(), stream, topic, 0)
	if len(got) != 3 || string(got[0].Payload) != "before" || string(got[2].Payload) != "after" {
		t.Fatalf("polled %d messages after the rotation: %+v", len(got), got)
	}
	waitKEKs(t, s.root(), stream, newFP)
}

// With a server key but enabled = false, a client key is taken and a
// stream created without one stays plaintext, also once encryption is
// enabled: the choice is made at create, and only new streams change.
// covers ENC-9 ENC-11
func TestEncryptionFixedAtCreate(t *testing.T) {
	dir := newDataDir(t)
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, streamkey.KeyBytes))
	s := startServer(t, serverConfig{dataDir: dir, defaultRoot: true, env: map[string]string{"IGGY_ENCRYPTION_KEY": key}})
	c := s.root()
	plain, topic := createStreamTopic(t, c, "plain", "t", 1)
	if _, err := c.CreateStreamWithOptions("own", wire.Options{{Key: wire.OptEncryptionKey, Kind: wire.KindRaw, Value: make([]byte, 32)}}); err != nil {
		t.Fatalf("a client key with enabled = false: %v", err)
	}
	if _, err := c.SendMessages(plain, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, []client.Message{{Payload: []byte("plain-payload-xyz")}}); err != nil {
		t.Fatal(err)
	}
	s.stop()
	s = startServer(t, serverConfig{dataDir: dir, defaultRoot: true, env: map[string]string{"IGGY_ENCRYPTION_KEY": key, "IGGY_ENCRYPTION_ENABLED": "true"}})
	c = s.root()
	if src, _ := streamOption(t, c, plain, wire.OptEncryptionKeySource); src != "none" {
		t.Fatalf("the plaintext stream reports source %q after enabling", src)
	}
	if got := pollAll(t, c, plain, topic, 0); len(got) != 1 || string(got[0].Payload) != "plain-payload-xyz" {
		t.Fatalf("polled %+v", got)
	}
	st, err := c.CreateStream("later")
	if err != nil {
		t.Fatal(err)
	}
	if src, _ := streamOption(t, c, wire.NumericID(st.ID), wire.OptEncryptionKeySource); src != "server" {
		t.Fatalf("a stream created after enabling reports source %q", src)
	}
}
