package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
)

// cpuProfileEnv names the file a CPU profile is written to, for performance
// work. It is not an IGGY_ variable: those are configuration keys, and a
// debug build refuses unknown ones.
const cpuProfileEnv = "IGGYGO_CPU_PROFILE"

// heapProfileEnv names the file the allocation profile (pprof "allocs":
// bytes and objects allocated since start, and what is live) is written to
// when the server stops, to find what the data path allocates.
const heapProfileEnv = "IGGYGO_HEAP_PROFILE"

// cpuProfile writes a CPU profile of the whole run to a file. SIGUSR1 starts
// it over (the file is truncated), so a benchmark can leave its setup out.
type cpuProfile struct {
	path string
	mu   sync.Mutex
	file *os.File
}

// startCPUProfile starts profiling when IGGYGO_CPU_PROFILE is set and returns
// the function that stops it and flushes the file (and writes the
// allocation profile when IGGYGO_HEAP_PROFILE is set; without it, allocation
// sampling is off).
func startCPUProfile() (stop func()) {
	if os.Getenv(heapProfileEnv) == "" {
		// Nobody reads allocation samples: at the default rate every 1 MiB
		// request frame is sampled with a stack walk (about 1.5% of the
		// producer's server CPU).
		runtime.MemProfileRate = 0
	}
	stopCPU := startCPUOnly()
	return func() {
		stopCPU()
		writeHeapProfile(os.Getenv(heapProfileEnv))
	}
}

func writeHeapProfile(path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "iggy-server: heap profile:", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "iggy-server: heap profile:", err)
	}
}

func startCPUOnly() (stop func()) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	p := &cpuProfile{path: path}
	p.mu.Lock()
	p.begin()
	p.mu.Unlock()
	restart := make(chan os.Signal, 1)
	signal.Notify(restart, syscall.SIGUSR1)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-restart:
				p.mu.Lock()
				p.end()
				p.begin()
				p.mu.Unlock()
			}
		}
	})
	return func() {
		signal.Stop(restart)
		close(done)
		wg.Wait()
		p.mu.Lock()
		p.end()
		p.mu.Unlock()
	}
}

// begin and end run with mu held; a failure is reported and profiling stays off.
func (p *cpuProfile) begin() {
	f, err := os.OpenFile(p.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "iggy-server: cpu profile:", err)
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "iggy-server: cpu profile:", err)
		f.Close()
		return
	}
	p.file = f
}

func (p *cpuProfile) end() {
	if p.file == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := p.file.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "iggy-server: cpu profile:", err)
	}
	p.file = nil
}
