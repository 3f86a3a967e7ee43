package storage

import (
	"strings"
	"testing"
)

// The contract every disk holds requests to: each bad request is named.
func TestCheckRefusesMalformedRequests(t *testing.T) {
	good := []Request{
		{Op: OpList, File: RootName},
		{Op: OpWrite, File: "a/b", Data: [][]byte{{1}}},
		{Op: OpRead, File: "a", Len: 8, Into: make([]byte, 8)},
		{Op: OpRename, File: "a/x", Target: "a/y"},
	}
	for _, r := range good {
		if err := r.Check(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	bad := []struct {
		r    Request
		want string
	}{
		{Request{Op: 0, File: "a"}, "unknown op"},
		{Request{Op: OpCreate, File: "../a"}, "bad path"},
		{Request{Op: OpCreate, File: RootName}, "bad path"},
		{Request{Op: OpCreate, File: "a//b"}, "bad path"},
		{Request{Op: OpCreate, File: "a\x00"}, "bad path"},
		{Request{Op: OpCreate, File: "a/"}, "bad path"},
		{Request{Op: OpCreate, File: "a/./b"}, "bad path"},
		{Request{Op: OpCreate, File: strings.Repeat("a", PathBytesMax+1)}, "bad path"},
		{Request{Op: OpRename, File: "a", Target: "/b"}, "bad target"},
		{Request{Op: OpRename, File: "a", Target: "a/b"}, "contain each other"},
		{Request{Op: OpSync, File: "a", Target: "b"}, "target"},
		{Request{Op: OpSync, File: "a", Data: [][]byte{{1}}}, "data set"},
		{Request{Op: OpSync, File: "a", Len: 1}, "length set"},
		{Request{Op: OpSync, File: "a", Into: []byte{0}}, "read buffer set"},
		{Request{Op: OpTruncate, File: "a", Offset: 1 << 63}, "too large"},
		{Request{Op: OpRead, File: "a", Len: ReadBytesMax + 1}, "read of"},
		{Request{Op: OpRead, File: "a", Len: 9, Into: make([]byte, 8)}, "into a buffer of"},
	}
	for _, b := range bad {
		err := b.r.Check()
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: got %v, want an error saying %q", b.r, err, b.want)
		}
	}
}

func TestPathHelpers(t *testing.T) {
	if !Within("a/b", "a") || Within("ab", "a") || !Within("x", RootName) || !Within("a", "a") {
		t.Error("Within")
	}
	if ParentName("a/b/c") != "a/b" || ParentName("a") != RootName || ParentName(RootName) != "" {
		t.Error("ParentName")
	}
	if BaseName("a/b/c") != "c" || BaseName("c") != "c" {
		t.Error("BaseName")
	}
}
