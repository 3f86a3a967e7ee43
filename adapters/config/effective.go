package config

import (
	"fmt"
	"strings"

	"github.com/knadh/koanf/parsers/toml/v2"
)

// SecretMode says what EffectiveTOML does with secret values.
type SecretMode uint8

// Secret modes.
const (
	// SecretsMasked shows a set secret as "******" (for the boot log, step 10).
	SecretsMasked SecretMode = iota
	// SecretsOmitted leaves secrets out (for current_config.toml, step 11).
	SecretsOmitted
)

// EffectiveTOML renders the merged configuration (config.md §2 steps 10-11).
// overrides replace scalar keys by dotted path, e.g. "tcp.address" with the
// address a listener actually bound (useful with port 0). The output never
// holds a secret value.
func (cfg *Config) EffectiveTOML(overrides map[string]string, mode SecretMode) ([]byte, error) {
	tree := deepCopy(cfg.raw).(map[string]any)
	for path, value := range overrides {
		keys := strings.Split(path, ".")
		parent, ok := lookupPath(tree, keys[:len(keys)-1])
		table, isTable := parent.(map[string]any)
		if !ok || !isTable {
			return nil, fmt.Errorf("effective config: no table for override %s", path)
		}
		table[keys[len(keys)-1]] = value
	}
	for _, l := range schemaLeaves {
		if !l.opts.secret || l.indexN > 0 {
			continue
		}
		keys := leafKeys(l)
		parent, _ := lookupPath(tree, keys[:len(keys)-1])
		table, ok := parent.(map[string]any)
		if !ok {
			continue
		}
		name := keys[len(keys)-1]
		if mode == SecretsOmitted || isEmptyValue(table[name]) {
			delete(table, name)
			continue
		}
		table[name] = secretMask
	}
	out, err := toml.Parser().Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("effective config: %w", err)
	}
	return out, nil
}

func isEmptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	}
	return false
}

// deepCopy copies tables and arrays so overrides never touch cfg.raw.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for key, child := range x {
			out[key] = deepCopy(child)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, child := range x {
			out[i] = deepCopy(child)
		}
		return out
	}
	return v
}
