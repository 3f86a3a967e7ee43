package sim

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// One seed run twice gives the same trace hash; two seeds give different
// ones. The hash covers every reply, disk request, job and log line of
// every node incarnation.
func TestDeterminism(t *testing.T) {
	for _, p := range []Profile{ProfileLite, ProfileSwarm, ProfileLiveness, ProfileCluster} {
		a, b, c := Run(3, p, nil), Run(3, p, nil), Run(4, p, nil)
		if a.Trace != b.Trace || a.Ticks != b.Ticks || a.Ops != b.Ops || a.Failure != b.Failure {
			t.Fatalf("%s seed 3 twice: %s / %s", p, a.Line(), b.Line())
		}
		if a.Trace == c.Trace {
			t.Fatalf("%s seeds 3 and 4 share trace %016x", p, a.Trace)
		}
		if a.Ops == 0 {
			t.Fatalf("%s seed 3 did nothing: %s", p, a.Line())
		}
	}
}

// A recorded trace replays into fresh nodes, without the world, to the
// same hash; for a replica set the peer messages are inputs like any other,
// and a node of several shards is rebuilt shard by shard, each hand-off
// taken from the replayed sender's own output.
func TestRecordReplay(t *testing.T) {
	for _, tc := range []struct {
		seed uint64
		p    Profile
	}{{5, ProfileLite}, {1, ProfileLite}, {4, ProfileCluster}} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		res := Run(tc.seed, tc.p, zw)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		rr, err := Replay(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s seed %d: %v", tc.p, tc.seed, err)
		}
		if rr.Replayed != res.Trace || rr.Seed != tc.seed || rr.Inputs == 0 {
			t.Fatalf("replay: %+v, run: %s", rr, res.Line())
		}
		if tc.seed == 1 && (res.Knobs.Shards < 2 || res.Marks[markShardHandOff] == 0) {
			t.Fatalf("lite seed 1 ran no hand-off between shards: %s", res.Knobs)
		}
	}
}

// Knobs depend on the seed and profile only, and a profile's knobs stay
// within its ranges.
func TestKnobs(t *testing.T) {
	if Draw(9, ProfileSwarm) != Draw(9, ProfileSwarm) {
		t.Fatal("one seed drew two knob sets")
	}
	sizes, shards := map[int]bool{}, map[int]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		sizes[Draw(seed, ProfileCluster).Replicas] = true
		k := Draw(seed, ProfileLite)
		if k.Replicas != 1 || k.ReadCorruptPerMille != 0 || k.DamagePerMillion != 0 || k.KillPerMillion == 0 {
			t.Fatalf("lite seed %d: %s", seed, k)
		}
		k = Draw(seed, ProfileCluster)
		if k.Replicas < 2 || k.Replicas > replicasMax || !k.DataOps || k.CheckpointEveryOps == 0 || k.CheckpointEveryOps > 32 || k.Shards != 1 {
			t.Fatalf("cluster seed %d: %s", seed, k)
		}
		for _, p := range []Profile{ProfileLite, ProfileSwarm, ProfileLiveness} {
			k := Draw(seed, p)
			if k.Replicas != 1 || !k.DataOps || k.Shards < 1 || k.Shards > shardsMax {
				t.Fatalf("%s seed %d: %s", p, seed, k)
			}
			shards[k.Shards] = true
		}
	}
	if len(sizes) != 5 || len(shards) != shardsMax {
		t.Fatalf("cluster replica sets drawn: %v, want 2 to 6; standalone shards drawn: %v, want 1 to %d", sizes, shards, shardsMax)
	}
}

// recordAt finds the record holding a byte of a segment image.
func TestRecordAt(t *testing.T) {
	rec := func(base uint64, n int) []byte {
		b := make([]byte, 256+48*n)
		putU64(b[8:], base)
		putU64(b[32:], uint64(len(b)))
		b[48] = byte(n)
		return b
	}
	img := append(rec(10, 2), rec(12, 3)...)
	for _, tc := range []struct{ pos, want uint64 }{{0, 10}, {351, 10}, {352, 12}, {uint64(len(img) - 1), 12}} {
		if got := recordAt(img, tc.pos, 10); got != tc.want {
			t.Fatalf("byte %d: record %d, want %d", tc.pos, got, tc.want)
		}
	}
	if got := recordAt(img[:300], 299, 10); got != 10 {
		t.Fatalf("cut image: %d", got)
	}
}

func putU64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}
