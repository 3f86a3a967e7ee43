package node_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/wire"
)

func testKEK(t *testing.T, b byte) streamkey.KEK {
	t.Helper()
	k, err := streamkey.DeriveKEK(bytes.Repeat([]byte{b}, streamkey.KeyBytes))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// keksOn reads stream s's kek fingerprints through the view of the
// replica cl is logged in to.
func keksOn(c *testCluster, cl *cclient, s string) string {
	code, payload := cl.do(wire.CmdGetStream, encode(wire.StreamRef{StreamID: wire.NamedID(s)}.Encode))
	d, _, _ := wire.DecodeStreamDetails(payload)
	o, _ := d.Stream.Options.Get(wire.OptEncryptionKEKFingerprint)
	if code != wire.OK {
		c.t.Fatalf("get stream: %s", code.Name())
	}
	return string(o.Value)
}

// refusedKey says whether the replica's last word on a stream key was
// that none of its keys opens it.
func refusedKey(h *replicaHost) bool {
	for _, l := range slices.Backward(h.logs) {
		if strings.Contains(l, "encrypted stream") {
			return strings.Contains(l, "no configured key opens")
		}
	}
	return false
}

// A rolling key rotation in a replica set: a replica given only the new
// key before phase 1 finished still boots, logs the stream and both
// fingerprint sets, and opens the stream once the primary's wrap under the
// new key has committed; replicas still on the old key keep booting
// throughout, as the old wraps stay.
// covers ENC-18 ENC-19 ENC-21
func TestClusterKeyRollout(t *testing.T) {
	kA, kB := testKEK(t, 1), testKEK(t, 2)
	old := node.Encryption{Enabled: true, KEKs: []streamkey.KEK{kA}}
	c := newClusterOf(&testCluster{t: t, encryption: map[int]node.Encryption{0: old, 1: old, 2: old}}, 3)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("secret", false))
	c.until("stream everywhere", func() bool { return c.converged(3) })

	c.stop(2, false)
	c.encryption[2] = node.Encryption{Enabled: true, KEKs: []streamkey.KEK{kB}}
	c.start(2)
	c.until("replica 2 back", func() bool { return c.converged(3) })
	if !refusedKey(c.hosts[2]) {
		t.Fatalf("replica 2, given only the new key, logged no refusal: %q", c.hosts[2].logs)
	}

	phase1 := node.Encryption{Enabled: true, KEKs: []streamkey.KEK{kB, kA}}
	for _, i := range []int{0, 1} {
		c.stop(i, false)
		c.encryption[i] = phase1
		c.start(i)
		c.until("replica back", func() bool { return c.hosts[i].n != nil && c.converged(3) })
	}
	// Only a primary that holds the new key adds wraps under it; replica 2
	// cannot even open the stream yet.
	for c.primary() == 2 {
		c.stop(2, false)
		c.start(2)
		c.until("replica 2 back", func() bool { return c.hosts[2].n != nil && c.converged(3) })
	}
	reader := c.client(2)
	reader.connect(2)
	mustOK(t, reader.login())
	want := kA.Fingerprint + "," + kB.Fingerprint
	c.until("the new wrap on replica 2", func() bool { return keksOn(c, reader, "secret") == want })

	c.stop(2, false)
	c.hosts[2].logs = nil
	c.start(2)
	c.until("replica 2 back again", func() bool { return c.converged(4) })
	if refusedKey(c.hosts[2]) {
		t.Fatalf("replica 2 still cannot open the stream after the new wrap committed: %q", c.hosts[2].logs)
	}
	c.stop(1, false)
	c.encryption[1] = old
	c.hosts[1].logs = nil
	c.start(1)
	c.until("an old-key replica back", func() bool { return c.converged(4) })
	if refusedKey(c.hosts[1]) {
		t.Fatalf("a replica on the old key cannot open the stream during the rollout")
	}
}

// restartAll restarts every replica with enc, one at a time.
func restartAll(c *testCluster, enc node.Encryption) {
	for i := range c.hosts {
		c.stop(i, false)
		c.encryption[i] = enc
		c.start(i)
		c.until("replica back", func() bool { return c.hosts[i].n != nil && c.primary() >= 0 })
	}
}

// A stream holds at most three wraps: a fourth key is not added until a
// retired fingerprint makes room, and the primary logs why.
// covers ENC-27 ENC-22 ENC-25
func TestWrapsAtMostThree(t *testing.T) {
	kA, kB, kC, kD := testKEK(t, 1), testKEK(t, 2), testKEK(t, 3), testKEK(t, 4)
	enc := func(keys ...streamkey.KEK) node.Encryption { return node.Encryption{Enabled: true, KEKs: keys} }
	c := newClusterOf(&testCluster{t: t, encryption: map[int]node.Encryption{0: enc(kA), 1: enc(kA), 2: enc(kA)}}, 3)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s", false))
	n := uint64(10)
	reader := func() *cclient {
		n++
		r := c.client(n)
		r.connect(c.primary())
		mustOK(t, r.login())
		return r
	}
	restartAll(c, enc(kB, kA))
	r := reader()
	c.until("two wraps", func() bool { return keksOn(c, r, "s") == kA.Fingerprint+","+kB.Fingerprint })
	restartAll(c, enc(kC, kB, kA))
	r = reader()
	c.until("three wraps", func() bool { return keksOn(c, r, "s") == kA.Fingerprint+","+kB.Fingerprint+","+kC.Fingerprint })
	restartAll(c, enc(kD, kC, kB))
	c.until("a refusal logged", func() bool {
		p := c.primary()
		return p >= 0 && slices.ContainsFunc(c.hosts[p].logs, func(l string) bool { return strings.Contains(l, "retire an old fingerprint first") })
	})
	withRetired := enc(kD, kC, kB)
	withRetired.RetiredFingerprints = []string{kA.Fingerprint}
	restartAll(c, withRetired)
	r = reader()
	c.until("A dropped, D added", func() bool { return keksOn(c, r, "s") == kB.Fingerprint+","+kC.Fingerprint+","+kD.Fingerprint })
}
