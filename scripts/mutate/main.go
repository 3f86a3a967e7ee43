// Command mutate checks that the tests catch what they claim: it applies
// each deliberate one-line break of mutations.txt to the working tree in
// turn, runs the test named for it, and requires that test to fail; the
// file is restored after every run (and on interrupt). The named tests
// must pass on the unbroken tree first. Run it from the repository root
// on a clean tree: make mutate.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// testTimeout bounds one go test run.
const testTimeout = "5m"

// mutation is one block of mutations.txt.
type mutation struct {
	name, file, from, to string
	pkg, test            string
	line                 int // of the block, for errors
}

func main() {
	list := flag.String("list", "scripts/mutate/mutations.txt", "the mutations")
	only := flag.String("only", "", "run only the mutations whose name matches this regexp")
	flag.Parse()
	ms, err := parse(*list)
	if err == nil {
		ms, err = filter(ms, *only)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	if err := baseline(ms); err != nil {
		fmt.Fprintln(os.Stderr, "mutate: the unbroken tree fails:", err)
		os.Exit(2)
	}
	missed := 0
	for _, m := range ms {
		caught, took, err := run(m)
		switch {
		case err != nil:
			fmt.Printf("ERROR   %s: %v\n", m.name, err)
			missed++
		case caught:
			fmt.Printf("caught  %s (%s %s, %.1fs)\n", m.name, m.pkg, m.test, took.Seconds())
		default:
			fmt.Printf("MISSED  %s (%s %s passed)\n", m.name, m.pkg, m.test)
			missed++
		}
	}
	fmt.Printf("%d of %d mutations caught\n", len(ms)-missed, len(ms))
	if missed > 0 {
		os.Exit(1)
	}
}

func parse(path string) ([]mutation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []mutation
	var cur mutation
	flush := func() error {
		if cur == (mutation{}) {
			return nil
		}
		if cur.name == "" || cur.file == "" || cur.from == "" || cur.pkg == "" || cur.test == "" {
			return fmt.Errorf("%s:%d: a mutation needs name, file, from, to and test", path, cur.line)
		}
		out = append(out, cur)
		cur = mutation{}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not key: value", path, n)
		}
		if cur.line == 0 {
			cur.line = n
		}
		value = strings.TrimSpace(value)
		switch key {
		case "name":
			cur.name = value
		case "file":
			cur.file = value
		case "from":
			cur.from = value
		case "to":
			cur.to = value
		case "test":
			f := strings.Fields(value)
			if len(f) != 2 {
				return nil, fmt.Errorf("%s:%d: test is a package and a test name", path, n)
			}
			cur.pkg, cur.test = f[0], f[1]
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q", path, n, key)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, sc.Err()
}

func filter(ms []mutation, only string) ([]mutation, error) {
	if only == "" {
		return ms, nil
	}
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, err
	}
	var out []mutation
	for _, m := range ms {
		if re.MatchString(m.name) {
			out = append(out, m)
		}
	}
	return out, nil
}

// runPattern anchors each level of a test name: TestA/sub runs that
// subtest alone.
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// goTest runs one test and reports whether it failed, with the output.
func goTest(pkg, test string) (bool, string, error) {
	cmd := exec.Command("go", "test", "-count=1", "-timeout", testTimeout, "-run", runPattern(test), pkg)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return false, string(out), nil
	case !errors.As(err, &exit):
		return false, string(out), err
	case strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]"):
		return false, string(out), fmt.Errorf("does not build:\n%s", out)
	}
	top, _, _ := strings.Cut(test, "/")
	return strings.Contains(string(out), "--- FAIL: "+top), string(out), nil
}

// baseline requires every named test to pass on the unbroken tree and to
// run at all (a pattern that matches nothing passes too).
func baseline(ms []mutation) error {
	for _, m := range ms {
		cmd := exec.Command("go", "test", "-count=1", "-timeout", testTimeout, "-v", "-run", runPattern(m.test), m.pkg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %v\n%s", m.pkg, m.test, err, out)
		}
		if !strings.Contains(string(out), "--- PASS: "+m.test) {
			return fmt.Errorf("%s %s: no such test ran", m.pkg, m.test)
		}
	}
	return nil
}

// run applies m, runs its test and restores the file, also when the run
// is interrupted.
func run(m mutation) (bool, time.Duration, error) {
	orig, err := os.ReadFile(m.file)
	if err != nil {
		return false, 0, err
	}
	mutated, err := apply(orig, m)
	if err != nil {
		return false, 0, err
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			_ = os.WriteFile(m.file, orig, 0o644)
			os.Exit(130)
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(stop)
		close(done)
	}()
	if err := os.WriteFile(m.file, mutated, 0o644); err != nil {
		return false, 0, err
	}
	start := time.Now()
	failed, _, err := goTest(m.pkg, m.test)
	if werr := os.WriteFile(m.file, orig, 0o644); werr != nil {
		return false, 0, fmt.Errorf("restoring %s: %w", m.file, werr)
	}
	return failed, time.Since(start), err
}

// apply replaces m.from by m.to on the one line of orig that holds it.
func apply(orig []byte, m mutation) ([]byte, error) {
	lines := strings.SplitAfter(string(orig), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, m.from) {
			if at >= 0 {
				return nil, fmt.Errorf("%s: %q is on lines %d and %d", m.file, m.from, at+1, i+1)
			}
			at = i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%s: %q not found (the code moved: update mutations.txt)", m.file, m.from)
	}
	lines[at] = strings.Replace(lines[at], m.from, m.to, 1)
	return []byte(strings.Join(lines, "")), nil
}
