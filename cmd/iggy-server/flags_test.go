package main

import "testing"

// covers CONF-5
// The command line takes --replica-id, --fresh (and -f),
// --with-default-root-credentials and --list-config-env-vars; any other
// flag is refused (every other setting is configuration).
func TestCommandLineFlags(t *testing.T) {
	f, err := parseFlags([]string{"--replica-id", "2", "-f", "--with-default-root-credentials", "--list-config-env-vars"})
	if err != nil || f.replicaID != 2 || !f.fresh || !f.withDefaultRootCredentials || !f.listConfigEnvVars {
		t.Fatalf("parsed %+v, err %v", f, err)
	}
	if f, err := parseFlags([]string{"--fresh"}); err != nil || !f.fresh || f.replicaID != -1 {
		t.Fatalf("--fresh: %+v, err %v", f, err)
	}
	for _, bad := range [][]string{{"--tcp-address", "0.0.0.0:1"}, {"--system.path", "x"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}
