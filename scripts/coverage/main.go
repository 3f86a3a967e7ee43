// Command coverage counts the requirements the tests prove: an ID of
// shared/spec/requirements.md counts once a test that names it ran and
// passed in the given `go test -json` output. A test names IDs in a
// "covers" line of its doc comment or of a comment in its body (the
// line, and the next ones while it ends with a comma); a transcript
// testdata/NAME.txt names them in its "# covers" line, for the subtest
// TestScenarios/NAME of its package. IDs named only by skipped tests are
// listed as open (known bugs), and so are those of failed tests. The old
// count (every ID anywhere in a test file or a .txt file, the grep of
// requirements.md) is printed beside it. Run from the repository root: make coverage.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// areas are the requirement areas counted (GW, the out-of-scope gateway
// list, is not).
var areas = []string{"ROOT", "STOR", "CONF", "TRAN", "SESS", "AUTH", "RES", "MSG", "DEFP", "CGRP",
	"IDEM", "ENC", "MCL", "VSR", "PLACE", "RELAY", "QEV", "FLOW", "OPS", "TOOL"}

var (
	idPattern     = regexp.MustCompile(`\b(` + strings.Join(areas, "|") + `)-[0-9]+\b`)
	coversPattern = regexp.MustCompile(`\bcovers:?\s+(` + strings.Join(areas, "|") + `)-[0-9]+\b`)
	reqPattern    = regexp.MustCompile(`^- ((` + strings.Join(areas, "|") + `)-[0-9]+):`)
)

// testKey names one test (or subtest) of one package.
type testKey struct{ pkg, test string }

func main() {
	results := flag.String("json", "", "go test -json output of the full test run")
	reqs := flag.String("requirements", "../shared/spec/requirements.md", "the requirement catalogue")
	flag.Parse()
	if *results == "" {
		fmt.Fprintln(os.Stderr, "coverage: -json FILE is required (make coverage writes it)")
		os.Exit(2)
	}
	if err := run(*results, *reqs); err != nil {
		fmt.Fprintln(os.Stderr, "coverage:", err)
		os.Exit(1)
	}
}

func run(results, reqs string) error {
	known, err := requirements(reqs)
	if err != nil {
		return err
	}
	module, err := modulePath()
	if err != nil {
		return err
	}
	claims, old, err := scanTests(module)
	if err != nil {
		return err
	}
	outcome, err := readResults(results)
	if err != nil {
		return err
	}
	report(known, claims, old, outcome)
	return nil
}

// requirements reads the IDs of the catalogue, withdrawn ones left out.
func requirements(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if m := reqPattern.FindStringSubmatch(line); m != nil && !strings.Contains(line, "(withdrawn)") {
			ids[m[1]] = true
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no requirement IDs", path)
	}
	return ids, nil
}

func modulePath() (string, error) {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		return "", fmt.Errorf("run from the repository root: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("go.mod names no module")
}

// scanTests maps every test to the IDs it claims, and gathers the old
// count's IDs (any ID anywhere in a test file or a transcript).
func scanTests(module string) (map[testKey][]string, map[string]bool, error) {
	claims := map[testKey][]string{}
	old := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "bin"):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		pkg := module
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg = module + "/" + strings.TrimSuffix(dir, "/testdata")
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
			return scanGoFile(path, pkg, claims, old)
		case strings.HasSuffix(path, ".txt"):
			return scanTranscript(path, pkg, claims, old)
		}
		return nil
	})
	return claims, old, err
}

// readNoting reads a file and notes every ID in it for the old count.
func readNoting(path string, old map[string]bool) ([]byte, error) {
	data, err := os.ReadFile(path)
	for _, id := range idPattern.FindAllString(string(data), -1) {
		old[id] = true
	}
	return data, err
}

func scanGoFile(path, pkg string, claims map[testKey][]string, old map[string]bool) error {
	src, err := readNoting(path, old)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return err
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
			continue
		}
		var text []string
		if fn.Doc != nil {
			text = append(text, fn.Doc.Text())
		}
		for _, cg := range f.Comments {
			if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace {
				text = append(text, cg.Text())
			}
		}
		if ids := coversIDs(strings.Join(text, "\n")); len(ids) > 0 {
			k := testKey{pkg, fn.Name.Name}
			claims[k] = append(claims[k], ids...)
		}
	}
	return nil
}

// coversIDs reads the IDs of every "covers" line of text: from the word
// covers to the end of its line, and on through the next lines while a
// line ends with a comma.
func coversIDs(text string) []string {
	var ids []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		loc := coversPattern.FindStringIndex(lines[i])
		if loc == nil {
			continue
		}
		line := lines[i][loc[0]:]
		for {
			ids = append(ids, idPattern.FindAllString(line, -1)...)
			if !strings.HasSuffix(strings.TrimSpace(line), ",") || i+1 >= len(lines) {
				break
			}
			i++
			line = lines[i]
		}
	}
	return ids
}

func scanTranscript(path, pkg string, claims map[testKey][]string, old map[string]bool) error {
	data, err := readNoting(path, old)
	if err != nil {
		return err
	}
	if filepath.Base(filepath.Dir(path)) != "testdata" {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "# covers "); ok {
			k := testKey{pkg, "TestScenarios/" + strings.TrimSuffix(filepath.Base(path), ".txt")}
			claims[k] = append(claims[k], idPattern.FindAllString(rest, -1)...)
		}
	}
	return sc.Err()
}

// event is one line of go test -json.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// result is how one test ended, with its skip reason.
type result struct {
	action string
	reason string
}

func readResults(path string) (map[testKey]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[testKey]result{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Test == "" {
			continue // a line of build output, or a package event
		}
		k := testKey{e.Package, e.Test}
		r := out[k]
		switch e.Action {
		case "pass", "fail", "skip":
			r.action = e.Action
		case "output":
			if s := strings.TrimSpace(e.Output); r.reason == "" && s != "" && !strings.HasPrefix(s, "=== ") && !strings.HasPrefix(s, "--- ") {
				r.reason = s
			}
		}
		out[k] = r
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no test results", path)
	}
	return out, sc.Err()
}

// status of one claim: the test ran and passed, or why it does not count.
func status(outcome map[testKey]result, k testKey) result {
	r, ok := outcome[k]
	if !ok || r.action == "" {
		return result{action: "not run"}
	}
	return r
}

// skippedOnly: every test that names the ID but did not prove it was
// skipped (rather than failed or not run).
func skippedOnly(whys []string) bool {
	for _, w := range whys {
		if !strings.HasPrefix(w, "skip ") {
			return false
		}
	}
	return len(whys) > 0
}

func report(known map[string]bool, claims map[testKey][]string, old map[string]bool, outcome map[testKey]result) {
	proven := map[string]bool{}
	unproven := map[string][]string{} // ID -> why, per test
	var unknown []string
	keys := make([]testKey, 0, len(claims))
	for k := range claims {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b testKey) int { return strings.Compare(a.pkg+" "+a.test, b.pkg+" "+b.test) })
	for _, k := range keys {
		r := status(outcome, k)
		for _, id := range claims[k] {
			switch {
			case !known[id]:
				unknown = append(unknown, fmt.Sprintf("%s (%s %s)", id, k.pkg, k.test))
			case r.action == "pass":
				proven[id] = true
			default:
				why := fmt.Sprintf("%s %s %s", r.action, k.pkg, k.test)
				if r.action == "skip" && r.reason != "" {
					why += ": " + r.reason
				}
				unproven[id] = append(unproven[id], why)
			}
		}
	}
	fmt.Printf("%-6s %6s %6s %6s %6s\n", "area", "total", "old", "proven", "open")
	var tTotal, tOld, tProven, tOpen int
	for _, a := range areas {
		total, o, p, open := 0, 0, 0, 0
		for id := range known {
			if !strings.HasPrefix(id, a+"-") {
				continue
			}
			total++
			if old[id] {
				o++
			}
			if proven[id] {
				p++
			} else if skippedOnly(unproven[id]) {
				open++
			}
		}
		fmt.Printf("%-6s %6d %6d %6d %6d\n", a, total, o, p, open)
		tTotal, tOld, tProven, tOpen = tTotal+total, tOld+o, tProven+p, tOpen+open
	}
	fmt.Printf("%-6s %6d %6d %6d %6d\n", "all", tTotal, tOld, tProven, tOpen)
	ids := make([]string, 0, len(unproven))
	for id := range unproven {
		if !proven[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, skipped := range []bool{true, false} {
		if skipped {
			fmt.Println("\nopen: named only by skipped tests (known bugs):")
		} else {
			fmt.Println("\nnot proven: named by tests that failed or did not run:")
		}
		for _, id := range ids {
			if skippedOnly(unproven[id]) != skipped {
				continue
			}
			for _, why := range unproven[id] {
				fmt.Printf("  %s: %s\n", id, why)
			}
		}
	}
	var mentioned []string
	for id := range old {
		if known[id] && !proven[id] && len(unproven[id]) == 0 {
			mentioned = append(mentioned, id)
		}
	}
	slices.Sort(mentioned)
	fmt.Printf("\nin the old count only (mentioned in a test or .txt file, claimed by no test): %s\n", strings.Join(mentioned, " "))
	if len(unknown) > 0 {
		fmt.Println("\nnamed but not in the catalogue:")
		for _, u := range unknown {
			fmt.Println("  " + u)
		}
	}
}
