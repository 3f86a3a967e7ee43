package config

import (
	"fmt"
	"slices"
	"strings"
)

// envPrefix starts every variable the server looks at.
const envPrefix = "IGGY_"

// secretMask replaces secret values in logs (config.md §7.3).
const secretMask = "******"

// envLayer is the environment turned into a key tree (config.md §7).
type envLayer struct {
	tree map[string]any
	// origins maps a concrete key path to the variable that set it.
	origins map[string]string
	// applied are info lines "<NAME> value changed to: <value>", secrets masked.
	applied  []string
	unknown  []string
	warnings []string
}

// indexed collects array entries by index until the layer is complete.
type indexed map[int]any

// parseEnviron turns KEY=VALUE entries into a map; empty values count as
// unset (config.md §7.2 rule 1); a later entry wins, as in a process env.
func parseEnviron(environ []string) map[string]string {
	env := make(map[string]string, len(environ))
	for _, entry := range environ {
		name, value, ok := strings.Cut(entry, "=")
		if !ok || name == "" {
			continue
		}
		if value == "" {
			delete(env, name)
			continue
		}
		env[name] = value
	}
	return env
}

// sortedIggyNames returns the IGGY_ variable names in order, so the layer,
// its warnings and its logs never depend on map order.
func sortedIggyNames(env map[string]string) []string {
	var names []string
	for name := range env {
		if strings.HasPrefix(name, envPrefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// buildEnvLayer maps every known variable onto its key path. Relocated
// variables were refused before this runs.
func buildEnvLayer(env map[string]string, names []string) envLayer {
	layer := envLayer{tree: map[string]any{}, origins: map[string]string{}}
	for _, name := range names {
		if isIgnoredEnv(name) {
			continue
		}
		l, indexes, ok := findLeaf(name)
		if !ok {
			l, indexes, ok = layer.resolveAlias(env, name)
			if !ok {
				continue
			}
		}
		value := env[name]
		insertLeaf(layer.tree, l.segs, indexes, inferEnvValue(value))
		layer.origins[l.concretePath(indexes)] = name
		shown := value
		if l.opts.secret {
			shown = secretMask
		}
		layer.applied = append(layer.applied, fmt.Sprintf("%s value changed to: %s", name, shown))
	}
	return layer
}

// resolveAlias handles an old-name variable (IGGY_SYSTEM_LOGGING_* etc.);
// anything else unmatched is recorded as unknown.
func (layer *envLayer) resolveAlias(env map[string]string, name string) (leaf, []int, bool) {
	current, isAlias := aliasEnvName(name)
	if isAlias {
		if l, indexes, ok := findLeaf(current); ok {
			if _, both := env[current]; both {
				layer.warnings = append(layer.warnings, fmt.Sprintf(
					"environment variable %s is ignored: %s is also set", name, current))
				return leaf{}, nil, false
			}
			layer.warnings = append(layer.warnings, fmt.Sprintf(
				"environment variable %s is an old name; use %s", name, current))
			return l, indexes, true
		}
	}
	layer.unknown = append(layer.unknown, name)
	return leaf{}, nil, false
}

// insertLeaf sets value at the leaf's path; index segments collect entries
// in an indexed map that finishTree turns into an array.
func insertLeaf(root map[string]any, segs []segment, indexes []int, value any) {
	var cur any = root
	k := 0
	for i, s := range segs {
		var key any = s.name
		if s.index {
			key = indexes[k]
			k++
		}
		if i == len(segs)-1 {
			setChild(cur, key, value)
			return
		}
		child := getChild(cur, key)
		if child == nil {
			if segs[i+1].index {
				child = indexed{}
			} else {
				child = map[string]any{}
			}
			setChild(cur, key, child)
		}
		cur = child
	}
}

func getChild(container, key any) any {
	switch c := container.(type) {
	case map[string]any:
		return c[key.(string)]
	case indexed:
		return c[key.(int)]
	}
	panic("config: env tree container of unexpected type")
}

func setChild(container, key, value any) {
	switch c := container.(type) {
	case map[string]any:
		c[key.(string)] = value
	case indexed:
		c[key.(int)] = value
	default:
		panic("config: env tree container of unexpected type")
	}
}

// finishTree turns indexed maps into arrays of length max index + 1; missing
// slots become empty tables (config.md §7.1 array assembly).
func finishTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for key, child := range x {
			x[key] = finishTree(child)
		}
		return x
	case indexed:
		length := 0
		for i := range x {
			length = max(length, i+1)
		}
		out := make([]any, length)
		for i := range out {
			if child, ok := x[i]; ok {
				out[i] = finishTree(child)
			} else {
				out[i] = map[string]any{}
			}
		}
		return out
	}
	return v
}
