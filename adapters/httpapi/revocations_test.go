package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Logouts, logouts of trusted issuers' tokens and spent refresh tokens
// survive a restart: a new set read from the same directory refuses them,
// and drops what has expired meanwhile.
// covers SESS-8, TRAN-4
func TestRevocationsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_000_000, 500)
	r, err := loadRevocations(dir, quietLog(), now)
	if err != nil {
		t.Fatal(err)
	}
	r.revokeLogin(keySession+"s1", now.Add(48*time.Hour), now)
	if used, full := r.spend(keyRefresh+"j1", now.Add(time.Hour), now); used || full {
		t.Fatal("spend refused")
	}
	if !r.revokeExternal(keyExternal+"e1", now.Add(time.Minute), now) {
		t.Fatal("external logout refused")
	}
	if _, err := os.Stat(filepath.Join(dir, revocationsFile+".tmp")); !os.IsNotExist(err) {
		t.Fatalf("the temporary file is left behind: %v", err)
	}

	later := now.Add(2 * time.Minute)
	back, err := loadRevocations(dir, quietLog(), later)
	if err != nil {
		t.Fatal(err)
	}
	if !back.has(keySession+"s1", later) || !back.has(keyRefresh+"j1", later) {
		t.Fatal("a revocation was lost across the restart")
	}
	if back.has(keyExternal+"e1", later) || back.set.len() != 2 {
		t.Fatalf("an expired revocation was loaded (len %d)", back.set.len())
	}
	// Expiries are kept in whole seconds rounded up: never earlier.
	if !back.has(keyRefresh+"j1", now.Add(time.Hour)) {
		t.Fatal("a revocation expires earlier after the restart")
	}
}

// A full set refuses spent refresh tokens beyond their share, but never a
// logout of a login: that raises the cut, which refuses every self-issued
// token issued until then, and survives a restart.
// covers SESS-8, TRAN-4
func TestFullRevocationsCutInsteadOfRefusingLogout(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(2_000_000, 0)
	r, err := openRevocations(dir, quietLog(), now, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if used, full := r.spend(fmt.Sprintf("%s%d", keyRefresh, i), now.Add(time.Hour), now); used || full {
			t.Fatalf("spend %d refused within the share", i)
		}
	}
	if used, full := r.spend(keyRefresh+"0", now.Add(time.Hour), now); !used || full {
		t.Fatal("a refresh token was spent twice")
	}
	if _, full := r.spend(keyRefresh+"x", now.Add(time.Hour), now); !full {
		t.Fatal("spent refresh tokens took the logouts' share")
	}
	r.revokeLogin(keySession+"a", now.Add(time.Hour), now)
	r.revokeLogin(keySession+"b", now.Add(time.Hour), now)
	if r.cutCovers(now.Unix()) {
		t.Fatal("cut while there was room")
	}
	r.revokeLogin(keySession+"c", now.Add(time.Hour), now)
	if !r.cutCovers(now.Unix()) || r.cutCovers(now.Unix()+1) || r.set.len() != 0 {
		t.Fatalf("a logout of a full set did not cut (len %d)", r.set.len())
	}
	back, err := openRevocations(dir, quietLog(), now, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !back.cutCovers(now.Unix()) {
		t.Fatal("the cut was lost across the restart")
	}
}

// A damaged file stops the start rather than reviving logged-out tokens.
func TestDamagedRevocationsFileIsRefused(t *testing.T) {
	img := revocationsImage{cut: 7, entries: []expiryEntry{{key: "sid:abc", exp: time.Unix(99, 1)}}}
	good := encodeRevocations(img)
	back, err := decodeRevocations(good)
	if err != nil || back.cut != 7 || len(back.entries) != 1 || back.entries[0].exp.Unix() != 100 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, bad := range [][]byte{
		nil,
		good[:len(good)-1],
		bytes.Replace(good, []byte("sid:abc"), []byte("sid:abd"), 1),
		bytes.Replace(good, []byte("cut 7"), []byte("cut 8"), 1),
	} {
		if _, err := decodeRevocations(bad); err == nil {
			t.Fatalf("damaged file accepted:\n%s", bad)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, revocationsFile), good[:len(good)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadRevocations(dir, quietLog(), time.Unix(0, 0)); err == nil {
		t.Fatal("a damaged revocations file was loaded")
	}
}

// Garbage never panics the decoder.
func FuzzDecodeRevocations(f *testing.F) {
	f.Add(encodeRevocations(revocationsImage{cut: 1, entries: []expiryEntry{{key: "jti:x", exp: time.Unix(5, 0)}}}))
	f.Add([]byte("iggy-http-revocations 1\ncut 0\ncrc32c 00000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := decodeRevocations(data)
		if err != nil {
			return
		}
		if again, err := decodeRevocations(encodeRevocations(img)); err != nil || len(again.entries) != len(img.entries) {
			t.Fatalf("a decoded image does not round trip: %v", err)
		}
	})
}

// Of many concurrent refreshes with one refresh token exactly one spends it.
// covers TRAN-4
func TestConcurrentSpendsOfOneRefreshToken(t *testing.T) {
	now := time.Unix(3_000_000, 0)
	r, err := loadRevocations("", quietLog(), now)
	if err != nil {
		t.Fatal(err)
	}
	const racers = 16
	wins := make(chan bool, racers)
	for range racers {
		go func() {
			used, full := r.spend(keyRefresh+"same", now.Add(time.Hour), now)
			wins <- !used && !full
		}()
	}
	won := 0
	for range racers {
		if <-wins {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d refreshes spent one token", won)
	}
}
