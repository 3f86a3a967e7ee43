package node

import (
	"fmt"
	"strings"
	"testing"
)

// Failed logins are counted by source host (the port dropped), IPv4-mapped
// addresses as IPv4, and IPv6 by /64 whatever its spelling (issue 11 item 4).
func TestLoginSource(t *testing.T) {
	for addr, want := range map[string]string{
		"10.1.2.3:5000":                  "10.1.2.3",
		"10.1.2.3":                       "10.1.2.3",
		"[::1]:80":                       "0:0:0:0::/64",
		"[2001:db8:0:1::7]:80":           "2001:db8:0:1::/64",
		"[2001:0DB8:0000:0001:ff::]:443": "2001:db8:0:1::/64",
		"[2001:db8:0:1:2:3:4:5%eth0]:1":  "2001:db8:0:1::/64",
		"[::ffff:192.0.2.1]:9":           "192.0.2.1",
		"[64:ff9b::192.0.2.1]:9":         "64:ff9b:0:0::/64",
		"[zz::]:1":                       "zz::",
		"[1:2:3:4:5:6:7:8:9]:1":          "1:2:3:4:5:6:7:8:9",
		"":                               "",
	} {
		if got := loginSource(addr); got != want {
			t.Errorf("loginSource(%q) = %q, want %q", addr, got, want)
		}
	}
}

func FuzzLoginSource(f *testing.F) {
	for _, s := range []string{"10.1.2.3:5000", "[::1]:80", "[::ffff:1.2.3.4]:1", "[a::b::c]:1", ":::", "[", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if got := loginSource(addr); len(got) > len(addr)+len("0:0:0:0::/64") {
			t.Fatalf("loginSource(%q) = %q: longer than its address", addr, got)
		}
	})
}

// A key's failures wait nothing at first, then doubling waits up to the
// cap; quiet keys are forgotten, and a full table drops the key that failed
// least recently.
func TestFailureTableBackoff(t *testing.T) {
	tab := newFailureTable(3, 40)
	var waits []string
	now := uint64(100)
	for range 7 {
		tab.failed("a", now)
		waits = append(waits, fmt.Sprint(tab.blockedUntil("a", now)-min(now, tab.blockedUntil("a", now))))
	}
	if got := strings.Join(waits, " "); got != "0 0 0 10 20 40 40" {
		t.Fatalf("waits %s", got)
	}
	if tab.blockedUntil("a", now+loginFailuresForgetTicks) != 0 || len(tab.entries) != 0 {
		t.Fatal("a quiet key is not forgotten")
	}
	for i, k := range []string{"k1", "k2", "k3", "k1", "k4"} {
		tab.failed(k, uint64(i))
	}
	if _, ok := tab.entries["k2"]; ok || len(tab.entries) != 3 {
		t.Fatalf("full table kept %d keys, k2 (least recent) kept: %v", len(tab.entries), ok)
	}
	tab.forget("k1")
	if tab.lookup("k1", 5) != nil {
		t.Fatal("forget kept k1")
	}
}
