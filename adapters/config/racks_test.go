package config

import (
	"strings"
	"testing"
)

// rosterWithRacks is a valid two-node roster whose nodes set these racks
// ("" leaves the key out).
func rosterWithRacks(racks ...string) string {
	var b strings.Builder
	b.WriteString("[cluster]\nenabled = true\nname = \"c\"\n")
	for i, r := range racks {
		b.WriteString("[[cluster.nodes]]\n")
		b.WriteString("name = \"n" + string(rune('0'+i)) + "\"\nip = \"127.0.0.1\"\nreplica_id = " + string(rune('0'+i)) + "\n")
		if r != "" {
			b.WriteString("rack = \"" + r + "\"\n")
		}
		p := string(rune('1' + i))
		b.WriteString("ports = { tcp = 1" + p + "01, quic = 1" + p + "02, http = 1" + p + "03, websocket = 1" + p + "04, tcp_replica = 1" + p + "05 }\n")
	}
	return b.String()
}

// A roster that sets rack on some nodes only stops the boot; on every node
// or on none it loads.
// covers PLACE-18
func TestMixedRackRosterRefused(t *testing.T) {
	for _, c := range []struct {
		racks []string
		ok    bool
	}{{[]string{"a", ""}, false}, {[]string{"", "b"}, false}, {[]string{"a", "b"}, true}, {[]string{"", ""}, true}} {
		dir := t.TempDir()
		writeFile(t, dir, "config.toml", rosterWithRacks(c.racks...))
		_, _, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
		if c.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "rack on every node or on none") {
			t.Errorf("racks %q: err = %v, want ok %t", c.racks, err, c.ok)
		}
	}
}
