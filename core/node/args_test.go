package node_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// args are a script command's words: positional ones, key=value ones, and
// bare flags. Every key and flag given must be used, so a typo fails.
type args struct {
	t     testing.TB
	cmd   string
	pos   []string
	kv    map[string]string
	flags map[string]bool
	used  map[string]bool
}

func parseArgs(t testing.TB, line string, flagNames ...string) *args {
	words := strings.Fields(line)
	a := &args{t: t, cmd: words[0], kv: map[string]string{}, flags: map[string]bool{}, used: map[string]bool{}}
	isFlag := map[string]bool{}
	for _, f := range flagNames {
		isFlag[f] = true
	}
	for _, w := range words[1:] {
		switch k, v, ok := strings.Cut(w, "="); {
		case ok:
			a.kv[k] = v
		case isFlag[w]:
			a.flags[w] = true
		case strings.HasPrefix(w, `"`):
			// A quoted word is a Go string literal: names with control characters.
			u, err := strconv.Unquote(w)
			if err != nil {
				t.Fatalf("%s: %v", w, err)
			}
			a.pos = append(a.pos, u)
		default:
			a.pos = append(a.pos, w)
		}
	}
	return a
}

func (a *args) fail(format string, v ...any) {
	a.t.Helper()
	a.t.Fatalf("%s: "+format, append([]any{a.cmd}, v...)...)
}

// arg is positional i.
func (a *args) arg(i int) string {
	a.t.Helper()
	if i >= len(a.pos) {
		a.fail("needs %d positional arguments, has %v", i+1, a.pos)
	}
	return a.pos[i]
}

func (a *args) flag(name string) bool {
	a.used[name] = true
	return a.flags[name]
}

func (a *args) str(key, def string) string {
	a.used[key] = true
	if v, ok := a.kv[key]; ok {
		return v
	}
	return def
}

func (a *args) has(key string) bool {
	a.used[key] = true
	_, ok := a.kv[key]
	return ok
}

func (a *args) u64(key string, def uint64) uint64 {
	a.t.Helper()
	s := a.str(key, "")
	if s == "" {
		return def
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		a.fail("%s=%q: %v", key, s, err)
	}
	return v
}

func (a *args) u32(key string, def uint32) uint32 { return uint32(a.u64(key, uint64(def))) }

// rest is every key=value not used yet, sorted: a command's options.
func (a *args) rest() []string {
	var out []string
	for k, v := range a.kv {
		if !a.used[k] {
			a.used[k] = true
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

// done fails on any key or flag the command did not read.
func (a *args) done(positional int) {
	a.t.Helper()
	if len(a.pos) > positional {
		a.fail("unexpected arguments %v", a.pos[positional:])
	}
	for k := range a.kv {
		if !a.used[k] {
			a.fail("unknown option %s", k)
		}
	}
	for f := range a.flags {
		if !a.used[f] {
			a.fail("unknown flag %s", f)
		}
	}
}

// ident reads a stream, topic or user identifier: digits are numeric.
func ident(s string) wire.Identifier {
	if v, err := strconv.ParseUint(s, 10, 32); err == nil {
		return wire.NumericID(uint32(v))
	}
	return wire.NamedID(s)
}

func parseVersion(t testing.TB, s string) wire.ProtocolVersion {
	var major, minor, patch uint32
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		t.Fatalf("version %q is not major.minor.patch", s)
	}
	for i, p := range []*uint32{&major, &minor, &patch} {
		v, err := strconv.ParseUint(parts[i], 10, 10)
		if err != nil {
			t.Fatalf("version %q: %v", s, err)
		}
		*p = uint32(v)
	}
	return wire.PackProtocolVersion(major, minor, patch)
}
