// Package promtext is a small strict parser of the Prometheus text
// exposition format (version 0.0.4), for tests that check a /metrics answer
// the way a scraper reads it. It refuses what Prometheus would refuse and a
// few things it tolerates but a correct exporter never writes: samples
// before their TYPE, a family split in two, a duplicate series, histogram
// buckets that are not cumulative or disagree with _count.
package promtext

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Sample is one line: a series and its value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Family is the samples of one TYPE line.
type Family struct {
	Name    string
	Type    string
	Help    string
	Samples []Sample
}

// linesMax bounds the input a test can hand in.
const linesMax = 1 << 20

var types = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true, "untyped": true}

// Parse reads a whole exposition. Families come back in input order.
func Parse(text string) ([]Family, error) {
	if text != "" && !strings.HasSuffix(text, "\n") {
		return nil, fmt.Errorf("exposition does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) > linesMax {
		return nil, fmt.Errorf("%d lines, more than %d", len(lines), linesMax)
	}
	p := parser{byName: map[string]*Family{}, closed: map[string]bool{}, series: map[string]bool{}, help: map[string]string{}}
	for i, line := range lines {
		if err := p.line(line); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
	}
	for _, f := range p.families {
		if err := checkFamily(f); err != nil {
			return nil, fmt.Errorf("family %s: %w", f.Name, err)
		}
	}
	out := make([]Family, len(p.families))
	for i, f := range p.families {
		out[i] = *f
	}
	return out, nil
}

type parser struct {
	families []*Family
	byName   map[string]*Family
	current  *Family
	closed   map[string]bool // families whose samples ended
	series   map[string]bool
	help     map[string]string
}

func (p *parser) line(line string) error {
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "# HELP "):
		name, help, _ := strings.Cut(line[len("# HELP "):], " ")
		if !validMetricName(name) {
			return fmt.Errorf("bad metric name")
		}
		if _, dup := p.help[name]; dup {
			return fmt.Errorf("second HELP for %s", name)
		}
		p.help[name] = help
		if f, ok := p.byName[name]; ok {
			f.Help = help
		}
		return nil
	case strings.HasPrefix(line, "# TYPE "):
		return p.typeLine(line[len("# TYPE "):])
	case strings.HasPrefix(line, "#"):
		return nil
	}
	return p.sample(line)
}

func (p *parser) typeLine(rest string) error {
	name, typ, ok := strings.Cut(rest, " ")
	if !ok || !validMetricName(name) || !types[typ] {
		return fmt.Errorf("bad TYPE line")
	}
	if _, dup := p.byName[name]; dup {
		return fmt.Errorf("second TYPE for %s", name)
	}
	if p.current != nil {
		p.closed[p.current.Name] = true
	}
	f := &Family{Name: name, Type: typ, Help: p.help[name]}
	p.families = append(p.families, f)
	p.byName[name] = f
	p.current = f
	return nil
}

func (p *parser) sample(line string) error {
	s, err := parseSample(line)
	if err != nil {
		return err
	}
	f := p.current
	if f == nil || familyOf(f, s.Name) != f.Name {
		return fmt.Errorf("sample %s outside its family's TYPE block", s.Name)
	}
	if f.Type == "counter" && (s.Value < 0 || math.IsNaN(s.Value)) {
		return fmt.Errorf("negative counter")
	}
	key := seriesKey(s)
	if p.series[key] {
		return fmt.Errorf("duplicate series")
	}
	p.series[key] = true
	f.Samples = append(f.Samples, s)
	return nil
}

// familyOf is the family a sample name belongs to given the current family.
func familyOf(f *Family, sample string) string {
	if sample == f.Name {
		return f.Name
	}
	if f.Type == "histogram" || f.Type == "summary" {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if sample == f.Name+suffix && (suffix != "_bucket" || f.Type == "histogram") {
				return f.Name
			}
		}
	}
	return ""
}

func seriesKey(s Sample) string {
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.Name)
	for _, k := range keys {
		b.WriteString("\x00" + k + "\x00" + s.Labels[k])
	}
	return b.String()
}

// parseSample reads `name{l="v",...} value [timestamp]`.
func parseSample(line string) (Sample, error) {
	i := 0
	for i < len(line) && line[i] != '{' && line[i] != ' ' {
		i++
	}
	s := Sample{Name: line[:i], Labels: map[string]string{}}
	if !validMetricName(s.Name) {
		return s, fmt.Errorf("bad metric name %q", s.Name)
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "{") {
		var err error
		if rest, err = parseLabels(rest[1:], s.Labels); err != nil {
			return s, err
		}
	}
	if !strings.HasPrefix(rest, " ") {
		return s, fmt.Errorf("no space before the value")
	}
	fields := strings.Split(rest[1:], " ")
	if len(fields) < 1 || len(fields) > 2 {
		return s, fmt.Errorf("want a value and an optional timestamp")
	}
	v, err := parseValue(fields[0])
	if err != nil {
		return s, err
	}
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return s, fmt.Errorf("bad timestamp")
		}
	}
	s.Value = v
	return s, nil
}

// parseLabels reads label pairs up to the closing brace and returns what follows.
func parseLabels(rest string, out map[string]string) (string, error) {
	for {
		if strings.HasPrefix(rest, "}") {
			return rest[1:], nil
		}
		eq := strings.IndexByte(rest, '=')
		if eq < 0 || !validLabelName(rest[:eq]) {
			return "", fmt.Errorf("bad label name")
		}
		name := rest[:eq]
		if _, dup := out[name]; dup {
			return "", fmt.Errorf("label %s twice", name)
		}
		value, after, err := parseQuoted(rest[eq+1:])
		if err != nil {
			return "", err
		}
		out[name] = value
		switch {
		case strings.HasPrefix(after, ","):
			rest = after[1:]
		case strings.HasPrefix(after, "}"):
			rest = after
		default:
			return "", fmt.Errorf("want , or } after a label")
		}
	}
}

// parseQuoted reads a "..." label value with the escapes \\ \" \n.
func parseQuoted(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("label value not quoted")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", fmt.Errorf("dangling escape")
			}
			i++
			switch s[i] {
			case '\\':
				b.WriteByte('\\')
			case '"':
				b.WriteByte('"')
			case 'n':
				b.WriteByte('\n')
			default:
				return "", "", fmt.Errorf("bad escape \\%c", s[i])
			}
		case '\n':
			return "", "", fmt.Errorf("raw newline in a label value")
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated label value")
}

func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.ContainsAny(s, "xXpP_") {
		return 0, fmt.Errorf("bad value %q", s)
	}
	return v, nil
}

func validMetricName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func validLabelName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != "" && !strings.HasPrefix(s, "__")
}

// checkFamily checks a histogram: per series, le labels ascending with
// cumulative counts, a +Inf bucket equal to _count, and a _sum.
func checkFamily(f *Family) error {
	if f.Type != "histogram" {
		return nil
	}
	type acc struct {
		lastLE, lastCount float64
		inf, count        float64
		hasInf, hasCount  bool
		hasSum            bool
		buckets           int
	}
	groups := map[string]*acc{}
	get := func(s Sample) *acc {
		base := Sample{Name: f.Name, Labels: map[string]string{}}
		for k, v := range s.Labels {
			if k != "le" {
				base.Labels[k] = v
			}
		}
		k := seriesKey(base)
		if groups[k] == nil {
			groups[k] = &acc{lastLE: math.Inf(-1)}
		}
		return groups[k]
	}
	for _, s := range f.Samples {
		a := get(s)
		switch s.Name {
		case f.Name + "_bucket":
			le, err := parseValue(s.Labels["le"])
			if err != nil || le <= a.lastLE || s.Value < a.lastCount {
				return fmt.Errorf("buckets not ascending and cumulative")
			}
			a.lastLE, a.lastCount, a.buckets = le, s.Value, a.buckets+1
			if math.IsInf(le, 1) {
				a.inf, a.hasInf = s.Value, true
			}
		case f.Name + "_count":
			a.count, a.hasCount = s.Value, true
		case f.Name + "_sum":
			a.hasSum = true
		default:
			return fmt.Errorf("sample %s in a histogram", s.Name)
		}
	}
	for _, a := range groups {
		if !a.hasInf || !a.hasCount || !a.hasSum || a.inf != a.count {
			return fmt.Errorf("histogram series without +Inf, _sum or a matching _count")
		}
	}
	return nil
}

// Find returns the family called name.
func Find(families []Family, name string) (Family, bool) {
	for _, f := range families {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}
