package disk

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

func create(name string) storage.Request  { return storage.Request{Op: storage.OpCreate, File: name} }
func syncReq(name string) storage.Request { return storage.Request{Op: storage.OpSync, File: name} }
func list(name string) storage.Request    { return storage.Request{Op: storage.OpList, File: name} }
func del(name string) storage.Request     { return storage.Request{Op: storage.OpDelete, File: name} }
func delTree(name string) storage.Request {
	return storage.Request{Op: storage.OpDeleteTree, File: name}
}

func write(name string, offset uint64, data ...[]byte) storage.Request {
	return storage.Request{Op: storage.OpWrite, File: name, Offset: offset, Data: data}
}

func read(name string, offset, n uint64) storage.Request {
	return storage.Request{Op: storage.OpRead, File: name, Offset: offset, Len: n}
}

func truncate(name string, size uint64) storage.Request {
	return storage.Request{Op: storage.OpTruncate, File: name, Offset: size}
}

func rename(from, to string) storage.Request {
	return storage.Request{Op: storage.OpRename, File: from, Target: to}
}

// run submits reqs with ids 1.. and returns their completions indexed like reqs.
func run(t testing.TB, d *Disk, reqs ...storage.Request) []storage.Completion {
	t.Helper()
	for i := range reqs {
		reqs[i].ID = storage.ReqID(i + 1)
	}
	d.Submit(reqs...)
	out := make([]storage.Completion, len(reqs))
	for _, c := range d.Drain() {
		out[c.ID-1] = c
	}
	return out
}

// ok is run, failing on any completion that is not ResultOK.
func ok(t testing.TB, d *Disk, reqs ...storage.Request) []storage.Completion {
	t.Helper()
	cs := run(t, d, reqs...)
	for i, c := range cs {
		if c.Result != storage.ResultOK {
			t.Fatalf("%v %s: result %d (%s)", reqs[i].Op, reqs[i].File, c.Result, c.Err)
		}
	}
	return cs
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}
