package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// configKey is one leaf of Config: its TOML path, its Go field name and
// the name of the table field holding it.
type configKey struct {
	path, field, table string
}

// fieldKeys lists the keys of t, recursing into tables (not durations and
// not arrays of tables, whose entries are read as a whole).
func fieldKeys(prefix string, t reflect.Type) []configKey { return fieldKeysIn(prefix, "", t) }

func fieldKeysIn(prefix, table string, t reflect.Type) []configKey {
	var out []configKey
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("koanf"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		path := tag
		if prefix != "" {
			path = prefix + "." + tag
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Duration]() {
			out = append(out, fieldKeysIn(path, f.Name, ft)...) // a table is read when a key of it is
			continue
		}
		out = append(out, configKey{path, f.Name, table})
	}
	return out
}

// goSourcesOutsideConfig is the text of every non-test Go file of the
// module but this package's.
func goSourcesOutsideConfig(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || path == filepath.Join(root, "adapters", "config")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Every key a user can set changes behaviour somewhere, or warns that it
// does not (unhonoured): its field is read outside this package, or a
// prefix of the unhonoured list covers it. The check is by field name, so
// a name shared by several tables (Enabled) passes if any is read; a key
// whose name is read nowhere is caught.
func TestEveryKeyIsReadOrWarned(t *testing.T) {
	src := goSourcesOutsideConfig(t)
	for _, k := range fieldKeys("", reflect.TypeFor[Config]()) {
		if unhonouredKey(k.path) {
			continue
		}
		if !readIn(src, k.field) {
			t.Errorf("configuration key %s (field %s) is read nowhere outside adapters/config and not in the unhonoured list", k.path, k.field)
		}
	}
}

// honouredInside are keys read only by this package, where reading them
// is their effect: a boot refusal or a value this package derives.
var honouredInside = []string{
	"system.segment.archive_expired",         // true is refused at boot
	"system.recovery.recreate_missing_state", // true is refused at boot
	"node.advertised_address",                // the wildcard-bind boot check (CONF-13)
}

func unhonouredKey(path string) bool {
	if slices.Contains(honouredInside, path) {
		return true
	}
	for _, u := range unhonoured {
		if strings.HasPrefix(path, u.prefix) {
			return true
		}
	}
	return false
}

func readIn(src, field string) bool {
	return regexp.MustCompile(`\.` + field + `\b`).MatchString(src)
}

// A key the unhonoured list names exactly must not be read (as
// .Table.Field) outside this package: once code honours it, it leaves the
// list, or its warning would lie.
func TestUnhonouredKeysAreNotRead(t *testing.T) {
	src := goSourcesOutsideConfig(t)
	for _, k := range fieldKeys("", reflect.TypeFor[Config]()) {
		for _, u := range unhonoured {
			if k.path == u.prefix && !u.partly && readIn(src, k.table+`\.`+k.field) {
				t.Errorf("configuration key %s is read outside adapters/config: remove it from the unhonoured list", k.path)
			}
		}
	}
}
