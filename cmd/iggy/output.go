package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// Output formats of --output.
const (
	outputTable = "table"
	outputJSON  = "json"
)

// table is what a command shows: headers and rows for people, and the
// value JSON encodes for scripts.
type table struct {
	headers []string
	rows    [][]string
}

func (t *table) add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.rows = append(t.rows, row)
}

// show prints v as JSON, or t as an aligned table.
func (a *app) show(v any, t table) error {
	if a.flags.output == outputJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	if len(t.headers) > 0 {
		fmt.Fprintln(w, strings.Join(t.headers, "\t"))
	}
	for _, r := range t.rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	return w.Flush()
}

// done reports a command without a result: a line for people, {"ok": true,
// ...fields} for scripts.
func (a *app) done(message string, fields map[string]any) error {
	if a.flags.output == outputJSON {
		v := map[string]any{"ok": true}
		for k, f := range fields {
			v[k] = f
		}
		return a.show(v, table{})
	}
	_, err := fmt.Fprintln(a.stdout, message)
	return err
}

// keyValues is a one-record table of field/value lines.
func keyValues(pairs ...any) table {
	t := table{headers: []string{"FIELD", "VALUE"}}
	for i := 0; i+1 < len(pairs); i += 2 {
		t.add(pairs[i], pairs[i+1])
	}
	return t
}

// timeText shows µs since the epoch in UTC, or "-" for 0.
func timeText(micros uint64) string {
	if micros == 0 {
		return "-"
	}
	return time.UnixMicro(int64(micros)).UTC().Format(time.RFC3339)
}
