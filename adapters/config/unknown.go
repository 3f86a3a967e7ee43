package config

import (
	"fmt"
	"slices"
	"strings"
)

// suggestionsMax bounds the "did you mean" names of one unknown variable.
const suggestionsMax = 3

// ignoredEnv are IGGY_ variables that are not configuration keys: the
// non-config variables the server honours (config.md §7.5) and upstream's
// ignore list (§7.4). They are never reported as unknown.
var ignoredEnv = []string{
	"IGGY_CI_BUILD",
	"IGGY_CONFIG_PATH",
	"IGGY_CONNECTORS_CONFIG_PATH",
	"IGGY_DISPLAY_CONFIG",
	"IGGY_ENV_PATH",
	"IGGY_MCP_CONFIG_PATH",
	"IGGY_ROOT_PASSWORD",
	"IGGY_ROOT_USERNAME",
	"IGGY_SHARD_EVENT_INTERVAL",
	"IGGY_SHARD_RUNTIME_CAPACITY",
	"IGGY_TEST_CLEANUP_DISABLED",
	"IGGY_TEST_CLUSTER_NODES",
	"IGGY_TEST_VERBOSE",
}

// ignoredEnvPrefixes belong to the connectors runtime.
var ignoredEnvPrefixes = []string{"IGGY_CONNECTORS_SINK_", "IGGY_CONNECTORS_SOURCE_"}

func isIgnoredEnv(name string) bool {
	if slices.Contains(ignoredEnv, name) {
		return true
	}
	for _, p := range ignoredEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// unknownEnvOutcome decides what unknown variables do: with fatal (debug
// builds, CONF-8) they stop the boot, otherwise each gives a warning and has
// no effect (CONF-9). Only names are reported, never values.
func unknownEnvOutcome(unknown []string, fatal bool) ([]string, error) {
	if len(unknown) == 0 {
		return nil, nil
	}
	if fatal {
		return nil, fmt.Errorf("%w: unknown environment variable(s) %s (debug build; see --list-config-env-vars)",
			ErrInvalidConfiguration, strings.Join(unknown, ", "))
	}
	warnings := make([]string, 0, len(unknown))
	for _, name := range unknown {
		msg := fmt.Sprintf("unknown environment variable %s will be ignored", name)
		if s := suggestEnv(name); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, ", ") + "?"
		}
		warnings = append(warnings, msg+" (see --list-config-env-vars)")
	}
	return warnings, nil
}

// suggestEnv returns up to three known names close to name: case-insensitive
// Levenshtein distance at most max(3, 30% of the longer name), nearest first,
// then by name.
func suggestEnv(name string) []string {
	type candidate struct {
		name     string
		distance int
	}
	var found []candidate
	upper := strings.ToUpper(name)
	for _, l := range schemaLeaves {
		known := concreteEnvName(l)
		limit := max(3, max(len(known), len(upper))*3/10)
		if d := levenshtein(upper, known); d <= limit {
			found = append(found, candidate{known, d})
		}
	}
	slices.SortFunc(found, func(a, b candidate) int {
		if a.distance != b.distance {
			return a.distance - b.distance
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, suggestionsMax)
	for _, c := range found {
		if len(out) == suggestionsMax {
			break
		}
		if !slices.Contains(out, c.name) {
			out = append(out, c.name)
		}
	}
	return out
}

// concreteEnvName is a leaf's variable with every index 0.
func concreteEnvName(l leaf) string {
	name := l.envName()
	for _, p := range indexPlaceholders {
		name = strings.ReplaceAll(name, p, "0")
	}
	return name
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
