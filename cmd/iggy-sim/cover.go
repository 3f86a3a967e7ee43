package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Coverage of the core under a sweep (iggy-sim -sweep A-B -cover): this
// command is built again with Go's coverage of core/ (go build -cover
// -coverpkg), the same sweep runs under that build with GOCOVERDIR, and
// the counters say which statements of core/ the sweep reached and which
// functions it never entered. It needs the module's source and the go
// command, as go test -cover does.
const (
	modulePath = "github.com/iggygo/iggy"
	corePkgs   = modulePath + "/core/..."
	simCmdPkg  = modulePath + "/cmd/iggy-sim"
)

// runCovered runs args (this command's, without -cover) under a covered
// build and reports the core's coverage; funcsPath, when set, receives
// every core function with its statement coverage.
func runCovered(args []string, funcsPath string) int {
	root, err := moduleRoot()
	if err != nil {
		fatal(err)
	}
	tmp, err := os.MkdirTemp("", "iggy-sim-cover")
	if err != nil {
		fatal(fmt.Errorf("-cover: %w", err))
	}
	defer os.RemoveAll(tmp)
	bin, counters := filepath.Join(tmp, "iggy-sim"), filepath.Join(tmp, "counters")
	if err := os.Mkdir(counters, 0o755); err != nil {
		fatal(fmt.Errorf("-cover: %w", err))
	}
	// The command itself is covered too: without it, a binary whose main
	// package is not instrumented writes no counters.
	if out, err := goCmd(root, "build", "-cover", "-coverpkg="+corePkgs+","+simCmdPkg, "-o", bin, simCmdPkg).CombinedOutput(); err != nil {
		fatal(fmt.Errorf("-cover: build: %v\n%s", err, out))
	}
	child := exec.Command(bin, args...)
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	child.Env = append(os.Environ(), "GOCOVERDIR="+counters)
	rc := 0
	if err := child.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fatal(fmt.Errorf("-cover: %w", err))
		}
		rc = exit.ExitCode()
	}
	if err := reportCoverage(root, counters, tmp, funcsPath); err != nil {
		fatal(fmt.Errorf("-cover: %w", err))
	}
	return rc
}

// reportCoverage prints the core's statement coverage per package and in
// all, and the core functions never entered.
func reportCoverage(root, counters, tmp, funcsPath string) error {
	pct, err := goCmd(root, "tool", "covdata", "percent", "-i", counters, "-pkg", corePkgs).Output()
	if err != nil {
		return fmt.Errorf("covdata percent: %w", err)
	}
	fmt.Print(string(pct))
	profile := filepath.Join(tmp, "profile.txt")
	if out, err := goCmd(root, "tool", "covdata", "textfmt", "-i", counters, "-pkg", corePkgs, "-o", profile).CombinedOutput(); err != nil {
		return fmt.Errorf("covdata textfmt: %v\n%s", err, out)
	}
	funcs, err := goCmd(root, "tool", "cover", "-func", profile).Output()
	if err != nil {
		return fmt.Errorf("cover -func: %w", err)
	}
	if funcsPath != "" {
		if err := os.WriteFile(funcsPath, funcs, 0o644); err != nil {
			return fmt.Errorf("-coverfuncs: %w", err)
		}
	}
	never, total := neverEntered(funcs)
	fmt.Printf("core: %s of statements; %d functions never entered:\n", total, len(never))
	for _, f := range never {
		fmt.Println("  " + f)
	}
	return nil
}

// neverEntered reads go tool cover -func output: the functions at 0.0%,
// and the total.
func neverEntered(funcs []byte) ([]string, string) {
	var never []string
	total := "?"
	sc := bufio.NewScanner(bytes.NewReader(funcs))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 3 && f[0] == "total:":
			total = f[2]
		case len(f) == 3 && f[2] == "0.0%":
			never = append(never, strings.TrimPrefix(f[0], modulePath+"/")+" "+f[1])
		}
	}
	return never, total
}

func moduleRoot() (string, error) {
	out, err := exec.Command(goBin(), "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("-cover needs the module's source: run it inside the repository (go env GOMOD: %q, %v)", mod, err)
	}
	return filepath.Dir(mod), nil
}

func goCmd(dir string, args ...string) *exec.Cmd {
	c := exec.Command(goBin(), args...)
	c.Dir = dir
	return c
}

func goBin() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

// withoutCoverFlags is args minus -cover and -coverfuncs FILE, for the
// covered build to run.
func withoutCoverFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch {
		case !strings.HasPrefix(args[i], "-"):
		case name == "cover":
			continue
		case name == "coverfuncs":
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}
