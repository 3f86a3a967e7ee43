package stats

import (
	"math"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	sorted := make([]time.Duration, 1000)
	for i := range sorted {
		sorted[i] = time.Duration(i+1) * time.Microsecond
	}
	cases := []struct {
		p    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {0.999, 999 * time.Microsecond}, {1, 1000 * time.Microsecond}}
	for _, c := range cases {
		if got := Percentile(sorted, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := Percentile([]time.Duration{7}, 0.999); got != 7 {
		t.Errorf("one sample: %v", got)
	}
	if got := Percentile(nil, 0.5); got != 0 {
		t.Errorf("no sample: %v", got)
	}
}

func TestSummarizeLatenciesUnsorted(t *testing.T) {
	l := summarizeLatencies([]time.Duration{5, 1, 4, 2, 3})
	if l.p50 != 3 || l.max != 5 || l.avg != 3 || l.p99 != 5 {
		t.Fatalf("%+v", l)
	}
}

// covers TOOL-15
func TestSummaryThroughputOverSlowestActor(t *testing.T) {
	t0 := time.Unix(1000, 0)
	fast := NewActor("producer", 0)
	fast.Start, fast.End = t0, t0.Add(1*time.Second)
	slow := NewActor("producer", 1)
	slow.Start, slow.End = t0, t0.Add(2*time.Second)
	for range 100 {
		fast.Record(time.Millisecond, 1000, 1_000_000)
		slow.Record(3*time.Millisecond, 1000, 1_000_000)
	}
	s := Summarize([]*Actor{fast, slow})
	// 200 MB in all over the slowest actor's 2 s: 100 MB/s, not the 150
	// MB/s that summing each actor's own rate would claim.
	if math.Abs(s.MBPerSec-100) > 1e-9 || math.Abs(s.MsgsPerSec-100_000) > 1e-6 {
		t.Fatalf("MB/s %v msgs/s %v", s.MBPerSec, s.MsgsPerSec)
	}
	if s.TotalBytes != 200_000_000 || s.TotalMessages != 200_000 || s.TotalBatches != 200 || s.DurationSec != 2 {
		t.Fatalf("%+v", s)
	}
	// Percentiles are per actor, then averaged: (1 + 3) / 2.
	if s.P50Ms != 2 || s.P99Ms != 2 || s.P999Ms != 2 {
		t.Fatalf("latencies %+v", s)
	}
}

func TestSummaryEmpty(t *testing.T) {
	if s := Summarize(nil); s != (Summary{}) {
		t.Fatalf("%+v", s)
	}
	a := NewActor("consumer", 0) // never measured anything
	if s := Summarize([]*Actor{a}); s.MBPerSec != 0 || s.Actors != 1 {
		t.Fatalf("%+v", s)
	}
}

func TestReservoirKeepsBoundAndDistribution(t *testing.T) {
	a := NewActor("producer", 3)
	n := latencySamplesMax * 3
	for i := range n {
		// Two thirds of the samples are slow: the kept sample must say so.
		l := time.Millisecond
		if i%3 != 0 {
			l = 10 * time.Millisecond
		}
		a.Record(l, 1, 1)
	}
	if len(a.latencies) != latencySamplesMax || a.batches != uint64(n) {
		t.Fatalf("kept %d of %d", len(a.latencies), a.batches)
	}
	slow := 0
	for _, l := range a.latencies {
		if l == 10*time.Millisecond {
			slow++
		}
	}
	if frac := float64(slow) / latencySamplesMax; math.Abs(frac-2.0/3) > 0.01 {
		t.Fatalf("slow fraction %v", frac)
	}
}

func TestPacerSpacesRequests(t *testing.T) {
	pc := Pacer{BytesPerSec: 1e6} // 1 MB/s: 10 kB every 10 ms
	start := time.Now()
	for range 6 {
		pc.Wait(10_000)
	}
	if d := time.Since(start); d < 45*time.Millisecond {
		t.Fatalf("6 paced requests took %v, want at least 50 ms", d)
	}
}
