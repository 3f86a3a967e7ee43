package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTicksPerSec is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture (the kernel ABI fixes it).
const clockTicksPerSec = 100

// bytesPerGB is the GB of the cpu-seconds-per-GB figures: 10^9 payload bytes.
const bytesPerGB = 1e9

// cpuUsage is the CPU time of the server (--server-pid) and of this bench
// over the measured phase, and per GB of payload moved: on a machine the two
// share, cpu-seconds per GB is steadier than MB/s.
type cpuUsage struct {
	ServerSec      float64 `json:"server_cpu_sec"`
	BenchSec       float64 `json:"bench_cpu_sec"`
	ServerSecPerGB float64 `json:"server_cpu_sec_per_gb"`
	BenchSecPerGB  float64 `json:"bench_cpu_sec_per_gb"`
}

// cpuMeter measures the CPU of the server and the bench over the measured
// phase: its first sample is taken when the warm-up ends (so the server's
// heap growth and the warm-up traffic are left out, as they are of MB/s).
type cpuMeter struct {
	pid   int
	start chan cpuSample // one sample, once the warm-up is over
	err   chan error
}

func startCPUMeter(pid int, warmup time.Duration) (*cpuMeter, error) {
	m := &cpuMeter{pid: pid, start: make(chan cpuSample, 1), err: make(chan error, 1)}
	if _, err := sampleCPU(pid); err != nil {
		return nil, err // the process is not there: fail before the run
	}
	time.AfterFunc(warmup, func() {
		s, err := sampleCPU(pid)
		if err != nil {
			m.err <- err
			return
		}
		m.start <- s
	})
	return m, nil
}

// stop takes the last sample; a run shorter than its warm-up still waits for
// the first one.
func (m *cpuMeter) stop(payloadBytes uint64) (cpuUsage, error) {
	var start cpuSample
	select {
	case start = <-m.start:
	case err := <-m.err:
		return cpuUsage{}, err
	}
	end, err := sampleCPU(m.pid)
	if err != nil {
		return cpuUsage{}, err
	}
	return usageBetween(start, end, payloadBytes), nil
}

// cpuSample is the user+system CPU seconds of the server and of the bench.
type cpuSample struct{ server, bench float64 }

func sampleCPU(serverPID int) (cpuSample, error) {
	server, err := procCPUSeconds(strconv.Itoa(serverPID))
	if err != nil {
		return cpuSample{}, err
	}
	bench, err := procCPUSeconds("self")
	if err != nil {
		return cpuSample{}, err
	}
	return cpuSample{server: server, bench: bench}, nil
}

// usageBetween is the CPU spent from a to b for payloadBytes moved.
func usageBetween(a, b cpuSample, payloadBytes uint64) cpuUsage {
	u := cpuUsage{ServerSec: b.server - a.server, BenchSec: b.bench - a.bench}
	if gb := float64(payloadBytes) / bytesPerGB; gb > 0 {
		u.ServerSecPerGB, u.BenchSecPerGB = u.ServerSec/gb, u.BenchSec/gb
	}
	return u
}

// procCPUSeconds reads utime+stime of /proc/<pid>/stat (all threads).
func procCPUSeconds(pid string) (float64, error) {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, fmt.Errorf("cpu of process %s: %w", pid, err)
	}
	// The command name (field 2) may hold spaces and parentheses: the fields
	// after it start behind the last ')'. utime and stime are fields 14 and
	// 15, so the 12th and 13th after it.
	end := bytes.LastIndexByte(raw, ')')
	if end < 0 {
		return 0, fmt.Errorf("cpu of process %s: malformed stat", pid)
	}
	fields := bytes.Fields(raw[end+1:])
	const utimeAt, stimeAt = 11, 12
	if len(fields) <= stimeAt {
		return 0, fmt.Errorf("cpu of process %s: stat has %d fields", pid, len(fields))
	}
	utime, err1 := strconv.ParseUint(string(fields[utimeAt]), 10, 64)
	stime, err2 := strconv.ParseUint(string(fields[stimeAt]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("cpu of process %s: bad utime/stime", pid)
	}
	return float64(utime+stime) / clockTicksPerSec, nil
}
