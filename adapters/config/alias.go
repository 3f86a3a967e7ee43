package config

import (
	"fmt"
	"strings"
)

// tableAlias is a table that config.md keeps under [system] and the
// reference documents (which win) keep at the top level. The old name still
// works, with a warning, so configs written to either document load.
type tableAlias struct {
	old, current []string
}

var tableAliases = []tableAlias{
	{old: []string{"system", "logging"}, current: []string{"logging"}},
	{old: []string{"system", "sharding"}, current: []string{"sharding"}},
	{old: []string{"system", "encryption"}, current: []string{"encryption"}},
}

func (a tableAlias) envPrefix(path []string) string {
	return "IGGY_" + strings.ToUpper(strings.Join(path, "_")) + "_"
}

// applyFileAliases moves old-name tables of a file tree to their current
// names; a key set under both names keeps the current one.
func applyFileAliases(file map[string]any) []string {
	var warnings []string
	for _, a := range tableAliases {
		v, ok := lookupPath(file, a.old)
		if !ok {
			continue
		}
		oldTable, isTable := v.(map[string]any)
		if !isTable {
			continue
		}
		current := ensureTable(file, a.current)
		for key, value := range oldTable {
			if _, set := current[key]; !set {
				current[key] = value
			}
		}
		parent, _ := lookupPath(file, a.old[:len(a.old)-1])
		delete(parent.(map[string]any), a.old[len(a.old)-1])
		warnings = append(warnings, fmt.Sprintf("config file: [%s] is an old name; use [%s]",
			strings.Join(a.old, "."), strings.Join(a.current, ".")))
	}
	return warnings
}

// ensureTable returns the table at path, creating missing tables.
func ensureTable(tree map[string]any, path []string) map[string]any {
	cur := tree
	for _, key := range path {
		next, ok := cur[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[key] = next
		}
		cur = next
	}
	return cur
}

// aliasEnvName maps an old-name variable to its current name.
func aliasEnvName(name string) (string, bool) {
	for _, a := range tableAliases {
		prefix := a.envPrefix(a.old)
		if strings.HasPrefix(name, prefix) {
			return a.envPrefix(a.current) + strings.TrimPrefix(name, prefix), true
		}
	}
	return "", false
}
