package config

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/knadh/koanf/parsers/toml/v2"
)

// EnvVar describes one configuration environment variable. Array entries
// use placeholders: IGGY_CLUSTER_NODES_<i>_NAME (index 0..=255, or 0..=15
// for advertised_addresses).
type EnvVar struct {
	Name string // e.g. IGGY_TCP_ADDRESS
	Path string // e.g. tcp.address
	// Default in environment syntax (lists as [a, b]); empty for array
	// entries and unset optional keys.
	Default string
	Secret  bool
}

// EnvVars lists every configuration variable, sorted by name (CONF-7).
func EnvVars() []EnvVar {
	defaults := defaultTree()
	out := make([]EnvVar, 0, len(schemaLeaves))
	for _, l := range schemaLeaves {
		v := EnvVar{Name: l.envName(), Path: l.pathName(), Secret: l.opts.secret}
		if l.indexN == 0 {
			if raw, ok := lookupPath(defaults, leafKeys(l)); ok {
				v.Default = envSyntax(raw)
			}
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// RenderEnvVars writes the list for --list-config-env-vars.
func RenderEnvVars(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tKEY\tDEFAULT")
	for _, v := range EnvVars() {
		def := v.Default
		if v.Secret {
			def = "(secret)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Name, v.Path, def)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the variable list: %w", err)
	}
	return nil
}

func leafKeys(l leaf) []string {
	keys := make([]string, 0, len(l.segs))
	for _, s := range l.segs {
		keys = append(keys, s.name)
	}
	return keys
}

// defaultTree parses the embedded defaults; they are compiled in, so a
// failure is a build defect.
func defaultTree() map[string]any {
	tree, err := toml.Parser().Unmarshal(defaultTOML)
	if err != nil {
		panic(fmt.Sprintf("config: embedded config.toml does not parse: %v", err))
	}
	return tree
}

// envSyntax renders a TOML value the way the environment would spell it.
func envSyntax(v any) string {
	switch x := v.(type) {
	case []any:
		items := make([]string, 0, len(x))
		for _, item := range x {
			items = append(items, envSyntax(item))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case map[string]any:
		return ""
	}
	return fmt.Sprint(v)
}
