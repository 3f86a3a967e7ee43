package disk

import (
	"fmt"
	"math/rand/v2"
	"testing"

	realdisk "github.com/iggygo/iggy/adapters/disk"
	"github.com/iggygo/iggy/io/storage"
)

// The model must answer as the real disk does. Random requests over a small
// namespace (files, directories, names used as both) run one at a time on
// the sim disk and on adapters/disk over a temporary directory; results,
// read data and listings must agree.
func TestMatchesRealDisk(t *testing.T) {
	const steps = 500
	for seed := range uint64(5) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			real, err := realdisk.New(t.TempDir(), realdisk.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer real.Close()
			sim := New(Options{Seed: seed})
			rng := rand.New(rand.NewPCG(seed, 77))
			for i := range steps {
				req := randomRequest(rng)
				req.ID = storage.ReqID(i + 1)
				if err := real.Submit(req); err != nil {
					t.Fatal(err)
				}
				want := <-real.Completions()
				sim.Submit(req)
				got, _ := sim.Next()
				if d := diffCompletion(got, want); d != "" {
					t.Fatalf("step %d, %v %s -> %s: %s", i, req.Op, req.File, req.Target, d)
				}
			}
		})
	}
}

var diffNames = []string{"a", "a/x", "a/y", "a/b", "a/b/z", "c", "c/x", "d/e/f"}

func randomRequest(rng *rand.Rand) storage.Request {
	name := diffNames[rng.IntN(len(diffNames))]
	ops := []storage.Op{storage.OpCreate, storage.OpCreate, storage.OpWrite, storage.OpWrite, storage.OpRead,
		storage.OpSync, storage.OpTruncate, storage.OpDelete, storage.OpDeleteTree, storage.OpRename, storage.OpList}
	r := storage.Request{Op: ops[rng.IntN(len(ops))], File: name}
	switch r.Op {
	case storage.OpWrite:
		r.Offset = rng.Uint64N(12)
		r.Data = [][]byte{[]byte(fmt.Sprintf("w%d", rng.IntN(1000))), []byte("-")}
	case storage.OpRead:
		r.Offset, r.Len = rng.Uint64N(8), rng.Uint64N(16)
	case storage.OpTruncate:
		r.Offset = rng.Uint64N(10)
	case storage.OpRename:
		for r.Target == "" || storage.Within(r.File, r.Target) || storage.Within(r.Target, r.File) {
			r.Target = diffNames[rng.IntN(len(diffNames))]
		}
	case storage.OpList:
		if rng.IntN(4) == 0 {
			r.File = storage.RootName
		}
	}
	return r
}

func diffCompletion(got, want storage.Completion) string {
	if got.Result != want.Result {
		return fmt.Sprintf("result %d (%s), real disk %d (%s)", got.Result, got.Err, want.Result, want.Err)
	}
	if string(got.Data) != string(want.Data) {
		return fmt.Sprintf("data %q, real disk %q", got.Data, want.Data)
	}
	if fmt.Sprint(got.Entries) != fmt.Sprint(want.Entries) {
		return fmt.Sprintf("entries %+v, real disk %+v", got.Entries, want.Entries)
	}
	return ""
}
