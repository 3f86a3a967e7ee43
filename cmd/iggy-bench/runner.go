package main

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/cmd/iggy-bench/stats"
)

const (
	// idleSleepMin and idleSleepMax bound the backoff after an empty poll.
	idleSleepMin = 50 * time.Microsecond
	idleSleepMax = 2 * time.Millisecond
	// progressPeriod is how often the live progress line is refreshed.
	progressPeriod = time.Second
)

// worker is one actor's request logic; the runner owns its timing.
type worker interface {
	// step performs one request and returns the messages it carried (0 for
	// an empty poll).
	step() (messages uint64, err error)
	// measured counts a step of the measured phase.
	measured(messages uint64)
	// rewind is called once, between the warm-up and the measured phase,
	// so a consumer reads in the measured phase what it read in the warm-up.
	rewind() error
	// finished reports that the actor's work is done: its share of
	// --total-messages, or everything there was to read.
	finished() bool
}

// actor is a worker with its measurements and its share of the rate limit.
type actor struct {
	w           worker
	st          *stats.Actor
	bytesPerSec float64 // 0: unlimited
	batchBytes  uint64
}

// runner drives every actor through the warm-up and the measured phase.
type runner struct {
	p        *params
	stop     atomic.Bool
	bytes    atomic.Uint64 // measured so far, for the progress line
	messages atomic.Uint64
	running  atomic.Int64
}

// run starts every actor at once and waits for all of them; the first error
// stops the others.
func (r *runner) run(actors []*actor, progressOut io.Writer, live bool) error {
	warmupEnd := time.Now().Add(r.p.warmup)
	errs := make([]error, len(actors))
	var wg sync.WaitGroup
	r.running.Store(int64(len(actors)))
	for i, a := range actors {
		wg.Go(func() {
			defer r.running.Add(-1)
			if err := r.drive(a, warmupEnd); err != nil {
				errs[i] = fmt.Errorf("%s %d: %w", a.st.Kind, a.st.ID, err)
				r.stop.Store(true)
			}
		})
	}
	done := make(chan struct{})
	var progress sync.WaitGroup
	progress.Go(func() { r.progress(progressOut, live, warmupEnd, done) })
	wg.Wait()
	close(done)
	progress.Wait()
	return errors.Join(errs...)
}

func (r *runner) drive(a *actor, warmupEnd time.Time) error {
	pace := stats.Pacer{BytesPerSec: a.bytesPerSec}
	idle := idleSleepMin
	for time.Now().Before(warmupEnd) && !r.stop.Load() {
		pace.Wait(a.batchBytes)
		n, err := a.w.step()
		if err != nil {
			return err
		}
		idle = idleBackoff(n, idle)
	}
	if err := a.w.rewind(); err != nil {
		return fmt.Errorf("rewind after the warm-up: %w", err)
	}
	a.st.Start = time.Now()
	a.st.End = a.st.Start
	deadline := a.st.Start.Add(r.p.duration)
	for !r.stop.Load() {
		if r.p.duration > 0 && !time.Now().Before(deadline) || a.w.finished() {
			return nil
		}
		pace.Wait(a.batchBytes)
		sent := time.Now()
		n, err := a.w.step()
		if err != nil {
			return err
		}
		if n == 0 {
			idle = idleBackoff(n, idle)
			continue
		}
		a.st.End = time.Now()
		bytes := n * uint64(r.p.MessageSize)
		a.st.Record(a.st.End.Sub(sent), n, bytes)
		a.w.measured(n)
		r.bytes.Add(bytes)
		r.messages.Add(n)
		idle = idleSleepMin
	}
	return nil
}

// idleBackoff sleeps after an empty poll, longer each time in a row.
func idleBackoff(messages uint64, idle time.Duration) time.Duration {
	if messages > 0 {
		return idleSleepMin
	}
	time.Sleep(idle)
	return min(idle*2, idleSleepMax)
}

// progress prints a live line until done: measured MB/s over the last period,
// totals so far and the actors still running.
func (r *runner) progress(out io.Writer, live bool, warmupEnd time.Time, done <-chan struct{}) {
	if out == nil {
		return
	}
	tick := time.NewTicker(progressPeriod)
	defer tick.Stop()
	start := time.Now()
	var lastBytes uint64
	last := start
	end := "\n"
	if live {
		end = "\x1b[K"
	}
	for {
		select {
		case <-done:
			if live {
				fmt.Fprint(out, "\r\x1b[K")
			}
			return
		case now := <-tick.C:
			b := r.bytes.Load()
			rate := float64(b-lastBytes) / stats.BytesPerMB / now.Sub(last).Seconds()
			lastBytes, last = b, now
			phase := "measuring"
			if now.Before(warmupEnd) {
				phase = "warming up"
			}
			prefix := ""
			if live {
				prefix = "\r"
			}
			fmt.Fprintf(out, "%s[%5.1fs] %s: %8.1f MB/s, %d messages, %.1f MB, %d actors running%s",
				prefix, now.Sub(start).Seconds(), phase, rate, r.messages.Load(), float64(b)/stats.BytesPerMB, r.running.Load(), end)
		}
	}
}
