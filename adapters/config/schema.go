package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The schema is generated from the Config struct by reflection, as upstream
// generates its env table from the Rust schema (config.md §7.1): one leaf
// per scalar key or array of scalars, arrays of tables as index segments.

// arrayEntriesMax is the default index ceiling (0..=255) of arrays of tables.
const arrayEntriesMax = 256

// indexPlaceholders name index segments in listings, outermost first.
var indexPlaceholders = []string{"<i>", "<j>", "<k>"}

// segment is one step of a key path: a table field or an array index.
type segment struct {
	name       string // TOML key; empty for an index segment
	index      bool
	entriesMax int // index segments: entries reachable from the environment
}

// tagOptions are the parsed `conf` tag options of a field.
type tagOptions struct {
	size, unlimited, tick, secret, optional, strict bool
	entriesMax                                      int
}

// leaf is one configuration key as the environment sees it.
type leaf struct {
	segs   []segment
	opts   tagOptions
	typ    reflect.Type
	envRe  *regexp.Regexp
	indexN int
}

// configDecoder is implemented by value types that parse themselves
// (Expiry, CPUAllocation, ReplicationFactor); they are leaves.
type configDecoder interface {
	decodeConfigValue(v any) error
}

var (
	decoderType  = reflect.TypeFor[configDecoder]()
	durationType = reflect.TypeFor[time.Duration]()
	schemaLeaves = buildSchema()
)

func buildSchema() []leaf {
	var out []leaf
	walkSchema(reflect.TypeFor[Config](), nil, &out)
	for i := range out {
		out[i].envRe = regexp.MustCompile("^" + out[i].envPattern() + "$")
	}
	return out
}

func walkSchema(t reflect.Type, prefix []segment, out *[]leaf) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := f.Tag.Get("koanf")
		if key == "" || key == "-" {
			continue
		}
		opts := parseTagOptions(f.Tag.Get("conf"))
		segs := appendSeg(prefix, segment{name: key})
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case isLeafType(ft):
			*out = append(*out, leaf{segs: segs, opts: opts, typ: f.Type, indexN: countIndexes(segs)})
		case ft.Kind() == reflect.Struct:
			walkSchema(ft, segs, out)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct && !isLeafType(ft.Elem()):
			entries := opts.entriesMax
			if entries == 0 {
				entries = arrayEntriesMax
			}
			walkSchema(ft.Elem(), appendSeg(segs, segment{index: true, entriesMax: entries}), out)
		default:
			*out = append(*out, leaf{segs: segs, opts: opts, typ: f.Type, indexN: countIndexes(segs)})
		}
	}
}

func appendSeg(prefix []segment, s segment) []segment {
	out := make([]segment, 0, len(prefix)+1)
	return append(append(out, prefix...), s)
}

func isLeafType(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(decoderType)
}

func countIndexes(segs []segment) int {
	n := 0
	for _, s := range segs {
		if s.index {
			n++
		}
	}
	return n
}

func parseTagOptions(tag string) tagOptions {
	var o tagOptions
	for _, part := range strings.Split(tag, ",") {
		switch {
		case part == "size":
			o.size = true
		case part == "unlimited":
			o.unlimited = true
		case part == "tick":
			o.tick = true
		case part == "secret":
			o.secret = true
		case part == "optional":
			o.optional = true
		case part == "strict":
			o.strict = true
		case strings.HasPrefix(part, "max="):
			n, err := strconv.Atoi(strings.TrimPrefix(part, "max="))
			if err != nil || n <= 0 {
				panic(fmt.Sprintf("config: bad conf tag %q", tag))
			}
			o.entriesMax = n
		case part == "":
		default:
			panic(fmt.Sprintf("config: unknown conf tag option %q", part))
		}
	}
	return o
}

// envName is the variable name with placeholders for indexes,
// e.g. IGGY_CLUSTER_NODES_<i>_PORTS_TCP.
func (l leaf) envName() string {
	parts := []string{"IGGY"}
	n := 0
	for _, s := range l.segs {
		if s.index {
			parts = append(parts, indexPlaceholders[n])
			n++
			continue
		}
		parts = append(parts, strings.ToUpper(s.name))
	}
	return strings.Join(parts, "_")
}

// pathName is the dotted key with placeholders, e.g. cluster.nodes[<i>].ip.
func (l leaf) pathName() string {
	var b strings.Builder
	n := 0
	for i, s := range l.segs {
		if s.index {
			b.WriteString("[" + indexPlaceholders[n] + "]")
			n++
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// envPattern is the regular expression matching this leaf's variables; an
// index is canonical decimal (no leading zeros), as upstream's exact table.
func (l leaf) envPattern() string {
	parts := []string{"IGGY"}
	for _, s := range l.segs {
		if s.index {
			parts = append(parts, "(0|[1-9][0-9]{0,3})")
			continue
		}
		parts = append(parts, regexp.QuoteMeta(strings.ToUpper(s.name)))
	}
	return strings.Join(parts, "_")
}

// matchEnv reports whether name is one of this leaf's variables, returning
// the concrete indexes (each below its ceiling).
func (l leaf) matchEnv(name string) ([]int, bool) {
	m := l.envRe.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	indexes := make([]int, 0, l.indexN)
	k := 1
	for _, s := range l.segs {
		if !s.index {
			continue
		}
		n, err := strconv.Atoi(m[k])
		if err != nil || n >= s.entriesMax {
			return nil, false
		}
		indexes = append(indexes, n)
		k++
	}
	return indexes, true
}

// concretePath renders the leaf's dotted path with the given indexes.
func (l leaf) concretePath(indexes []int) string {
	var b strings.Builder
	k := 0
	for i, s := range l.segs {
		if s.index {
			fmt.Fprintf(&b, "[%d]", indexes[k])
			k++
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// findLeaf returns the leaf a variable name belongs to.
func findLeaf(name string) (leaf, []int, bool) {
	for _, l := range schemaLeaves {
		if indexes, ok := l.matchEnv(name); ok {
			return l, indexes, true
		}
	}
	return leaf{}, nil, false
}
