package main

import (
	"os"
	"testing"
	"time"
)

// No requirement names CPU per GB; it is a tool for the data path work (issue 5).
func TestProcCPUSecondsOfSelf(t *testing.T) {
	spin := 0
	for i := range 20_000_000 {
		spin += i
	}
	_ = spin
	s, err := sampleCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.server < 0 || s.bench < 0 || s.server > s.bench+1 {
		t.Fatalf("implausible sample %+v", s)
	}
	if _, err := procCPUSeconds("0"); err == nil {
		t.Fatal("pid 0 has no stat file; want an error")
	}
}

func TestUsageBetweenPerGB(t *testing.T) {
	u := usageBetween(cpuSample{server: 1, bench: 2}, cpuSample{server: 3, bench: 3}, 4e9)
	if u.ServerSec != 2 || u.BenchSec != 1 || u.ServerSecPerGB != 0.5 || u.BenchSecPerGB != 0.25 {
		t.Fatalf("usage %+v", u)
	}
	if z := usageBetween(cpuSample{}, cpuSample{server: 1}, 0); z.ServerSecPerGB != 0 {
		t.Fatalf("no bytes must give no per-GB figure, got %+v", z)
	}
}

// The meter's first sample waits for the warm-up; a missing process fails
// before the run.
func TestCPUMeterStartsAfterTheWarmup(t *testing.T) {
	if _, err := startCPUMeter(-1, 0); err == nil {
		t.Fatal("want an error for a process that does not exist")
	}
	m, err := startCPUMeter(os.Getpid(), 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.start:
		t.Fatal("sampled before the warm-up ended")
	default:
	}
	u, err := m.stop(1e9)
	if err != nil || u.ServerSec < 0 || u.ServerSecPerGB != u.ServerSec {
		t.Fatalf("usage %+v, %v", u, err)
	}
}
