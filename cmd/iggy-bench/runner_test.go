package main

import (
	"io"
	"testing"
	"time"

	"github.com/iggygo/iggy/cmd/iggy-bench/stats"
)

// fakeWorker counts its steps and when it was rewound.
type fakeWorker struct {
	steps, measuredSteps, stepsAtRewind int
	rewinds                             int
	limit                               int
}

func (f *fakeWorker) step() (uint64, error) { f.steps++; return 10, nil }
func (f *fakeWorker) measured(uint64)       { f.measuredSteps++ }
func (f *fakeWorker) rewind() error         { f.rewinds++; f.stepsAtRewind = f.steps; return nil }
func (f *fakeWorker) finished() bool        { return f.measuredSteps >= f.limit }

// covers TOOL-12
func TestWarmupIsPacedUnmeasuredThenRewound(t *testing.T) {
	p := params{MessageSize: 100, MessagesPerBatch: 10, warmup: 100 * time.Millisecond}
	w := &fakeWorker{limit: 5}
	// 1000 bytes a step at 20 kB/s: one step every 50 ms, so the 100 ms
	// warm-up holds 2 or 3 steps, not thousands.
	a := &actor{w: w, st: stats.NewActor("producer", 0), bytesPerSec: 20_000, batchBytes: 1000}
	r := runner{p: &p}
	if err := r.run([]*actor{a}, io.Discard, false); err != nil {
		t.Fatal(err)
	}
	if w.rewinds != 1 || w.stepsAtRewind < 1 || w.stepsAtRewind > 4 {
		t.Fatalf("rewound %d times after %d warm-up steps", w.rewinds, w.stepsAtRewind)
	}
	if w.measuredSteps != 5 || a.st.Elapsed() <= 0 {
		t.Fatalf("measured %d steps over %v", w.measuredSteps, a.st.Elapsed())
	}
	s := stats.Summarize([]*stats.Actor{a.st})
	if s.TotalMessages != 50 || s.TotalBytes != 5000 {
		t.Fatalf("warm-up leaked into the measurement: %+v", s)
	}
}
