package config

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// leafPaths lists every scalar or scalar-array key of a TOML tree, with
// array-of-table indexes as placeholders, the way EnvVars spells paths.
func leafPaths(prefix string, tree map[string]any, depth int, out *[]string) {
	for key, v := range tree {
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		switch x := v.(type) {
		case map[string]any:
			leafPaths(path, x, depth, out)
		case []any:
			if len(x) > 0 {
				if _, tables := x[0].(map[string]any); tables {
					for _, item := range x {
						leafPaths(path+"["+indexPlaceholders[depth]+"]", item.(map[string]any), depth+1, out)
					}
					continue
				}
			}
			*out = append(*out, path)
		default:
			*out = append(*out, path)
		}
	}
}

// covers CONF-7
func TestEnvVarsCoverEmbeddedFile(t *testing.T) {
	vars := EnvVars()
	byPath := map[string]EnvVar{}
	for _, v := range vars {
		byPath[v.Path] = v
	}
	var paths []string
	leafPaths("", defaultTree(), 0, &paths)
	for _, p := range paths {
		if _, ok := byPath[p]; !ok {
			t.Errorf("embedded key %s has no environment variable", p)
		}
	}
	if !sort.SliceIsSorted(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name }) {
		t.Error("EnvVars is not sorted")
	}
	// Every required (non-optional, non-array) key is in the embedded file.
	for _, l := range schemaLeaves {
		if l.indexN == 0 && !l.opts.optional && !slices.Contains(paths, l.pathName()) {
			t.Errorf("schema key %s missing from config.toml", l.pathName())
		}
	}
}

// covers CONF-3, CONF-7
func TestEnvVarNamesFollowTheRule(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range EnvVars() {
		if seen[v.Name] {
			t.Errorf("duplicate variable %s", v.Name)
		}
		seen[v.Name] = true
		concrete := strings.NewReplacer("<i>", "3", "<j>", "2").Replace(v.Name)
		want := "IGGY_" + strings.ToUpper(strings.NewReplacer(".", "_", "[<i>]", "_3", "[<j>]", "_2").Replace(v.Path))
		if concrete != want {
			t.Errorf("%s does not follow the rule for %s (%s)", v.Name, v.Path, want)
		}
		matches := 0
		for _, l := range schemaLeaves {
			if _, ok := l.matchEnv(concrete); ok {
				matches++
			}
		}
		if matches != 1 {
			t.Errorf("%s matches %d keys", concrete, matches)
		}
	}
	for _, name := range []string{"IGGY_HTTP_JWT_ACCESS_TOKEN_EXPIRY", "IGGY_SHARDING_CPU_ALLOCATION",
		"IGGY_CLUSTER_NODES_<i>_PORTS_TCP_REPLICA", "IGGY_CLUSTER_NODES_<i>_ADVERTISED_ADDRESSES_<j>_CLIENT_CIDR",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_<i>_USERNAME", "IGGY_ENCRYPTION_PREVIOUS_KEYS", "IGGY_NODE_ADVERTISED_ADDRESS"} {
		if !seen[name] {
			t.Errorf("%s is not listed", name)
		}
	}
}

// covers CONF-7
func TestRenderEnvVars(t *testing.T) {
	var b bytes.Buffer
	if err := RenderEnvVars(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"IGGY_TCP_ADDRESS", "tcp.address", "127.0.0.1:8090",
		"IGGY_HTTP_CORS_ALLOWED_METHODS", "[GET, POST, PUT, DELETE]", "IGGY_CLUSTER_AUTH_SHARED_SECRET"} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q", want)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "IGGY_HTTP_JWT_ENCODING_SECRET") && !strings.Contains(line, "(secret)") {
			t.Errorf("secret not marked: %q", line)
		}
	}
	if lines := strings.Count(out, "\n"); lines != len(EnvVars())+1 {
		t.Errorf("%d lines for %d variables", lines, len(EnvVars()))
	}
}

// The variable list names every secret key of §7.3 (as moved by decisions.md).
func TestSecretsAreMarked(t *testing.T) {
	want := []string{"IGGY_CLUSTER_AUTH_PREVIOUS_SHARED_SECRET", "IGGY_CLUSTER_AUTH_SHARED_SECRET",
		"IGGY_ENCRYPTION_KEY", "IGGY_ENCRYPTION_PREVIOUS_KEYS", "IGGY_HTTP_JWT_DECODING_SECRET", "IGGY_HTTP_JWT_ENCODING_SECRET"}
	var got []string
	for _, v := range EnvVars() {
		if v.Secret {
			got = append(got, v.Name)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("secrets = %v, want %v", got, want)
	}
}
