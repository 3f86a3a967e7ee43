package disk

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

const (
	benchWriteBytes = 1 << 20
	benchBufBytes   = 64 << 10
	benchFileBytes  = 64 << 20 // offsets wrap so the file stays bounded
)

// BenchmarkSequentialWrite measures 1 MiB vectored appends through the Disk,
// alone and each followed by fdatasync.
func BenchmarkSequentialWrite(b *testing.B) {
	b.Run("nosync", func(b *testing.B) { benchSequentialWrite(b, false) })
	b.Run("fdatasync", func(b *testing.B) { benchSequentialWrite(b, true) })
}

func benchSequentialWrite(b *testing.B, sync bool) {
	d, err := New(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	bufs := make([][]byte, benchWriteBytes/benchBufBytes)
	for i := range bufs {
		bufs[i] = make([]byte, benchBufBytes)
	}
	id := storage.ReqID(0)
	submit := func(reqs ...storage.Request) {
		for i := range reqs {
			id++
			reqs[i].ID = id
		}
		if err := d.Submit(reqs...); err != nil {
			b.Fatal(err)
		}
		for range reqs {
			if c := <-d.Completions(); c.Result != storage.ResultOK {
				b.Fatal(c.Err)
			}
		}
	}
	submit(create("bench.log"))
	b.SetBytes(benchWriteBytes)
	for i := 0; b.Loop(); i++ {
		w := write("bench.log", uint64(i*benchWriteBytes%benchFileBytes), bufs...)
		if sync {
			submit(w, syncReq("bench.log"))
		} else {
			submit(w)
		}
	}
}
