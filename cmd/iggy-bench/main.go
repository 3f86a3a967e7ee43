// Command iggy-bench measures an Iggy server: producers and consumers over
// the binary protocol, each actor on its own connection, with throughput as
// the total data over the time of the slowest actor and latency percentiles
// per actor averaged over the actors (TOOL-13..15). Consumers verify what
// they read: offsets contiguous, payload sizes, and every checksum.
//
//	iggy-bench pinned-producer --addr 127.0.0.1:8090 --actors 8 \
//	    --message-size 1000 --messages-per-batch 1000 --duration 10s --json
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"golang.org/x/sys/unix"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, out, errOut io.Writer) int {
	p, err := parseParams(args, errOut)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(errOut, "iggy-bench:", err)
		return 2
	}
	if err := bench1(&p, out, errOut); err != nil {
		fmt.Fprintln(errOut, "iggy-bench:", err)
		return 1
	}
	return 0
}

// bench1 runs one benchmark and prints its result.
func bench1(p *params, out, errOut io.Writer) error {
	echo := out
	if p.JSON {
		echo = errOut // stdout carries exactly one JSON object
	}
	fmt.Fprintln(echo, describe(p))
	admin, err := connectAdmin(p)
	if err != nil {
		return err
	}
	defer admin.Close()
	b, err := prepare(admin, p)
	if err != nil {
		return err
	}
	defer b.close()
	if p.Cold {
		if err := dropPageCache(); err != nil {
			return err
		}
	}
	if path := os.Getenv(cpuProfileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			return err
		}
		defer stop()
	}
	var cpu *cpuMeter
	if p.ServerPID > 0 {
		if cpu, err = startCPUMeter(p.ServerPID, p.warmup); err != nil {
			return err
		}
	}
	r := runner{p: p}
	if err := r.run(b.actors, errOut, isTerminal(errOut)); err != nil {
		return err
	}
	res := buildResult(p, b.actors)
	if cpu != nil {
		u, err := cpu.stop(res.TotalBytes)
		if err != nil {
			return err
		}
		res.CPU = &u
	}
	if p.JSON {
		if err := writeJSON(out, res); err != nil {
			return err
		}
	} else {
		writeText(out, res)
	}
	if p.Cleanup {
		return deleteStreams(admin, b.targets)
	}
	return nil
}

// isTerminal reports whether w is a terminal, where the progress line
// redraws itself in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// cpuProfileEnv names a file for a CPU profile of the measured run (after
// the setup and logins), to see what the bench itself costs on a machine it
// shares with the server.
const cpuProfileEnv = "IGGYGO_BENCH_CPU_PROFILE"

func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
