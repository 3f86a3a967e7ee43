// Command natsbench is the NATS JetStream side of scripts/bench-vs-nats.sh:
// the workloads of iggy-bench (pinned producer, pinned consumer) against
// JetStream streams with file storage and one replica, measured and reported
// by the same definitions (package stats of iggy-bench), and the table that
// compares the two.
//
//	natsbench pinned-producer --url nats://127.0.0.1:4222 --actors 8 --duration 10s --json
//	natsbench pinned-producer --atomic ...   (one atomic batch per request batch)
//	natsbench table LABEL OURS.json NATS.json [LABEL OURS.json NATS.json ...]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/iggygo/iggy/cmd/iggy-bench/stats"
)

const (
	actorsMax           = 1024
	messagesPerBatchMax = 1000 // the JetStream limit of one atomic batch
	messageSizeMax      = 1 << 20
	requestTimeout      = 30 * time.Second
	prefillBatchesMin   = 100
)

type params struct {
	Workload         string  `json:"workload"`
	URL              string  `json:"url"`
	Actors           int     `json:"actors"`
	MessageSize      int     `json:"message_size"`
	MessagesPerBatch int     `json:"messages_per_batch"`
	Duration         string  `json:"duration"`
	RateLimitMBps    float64 `json:"rate_limit_mb_per_sec,omitempty"`
	Atomic           bool    `json:"atomic_batches"`
	PrefillBatches   int     `json:"prefill_batches,omitempty"`
	JSON             bool    `json:"-"`
	duration         time.Duration
}

type result struct {
	Params params `json:"params"`
	stats.Summary
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "table" {
		if err := table(os.Stdout, os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "natsbench:", err)
			os.Exit(1)
		}
		return
	}
	p, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsbench:", err)
		os.Exit(2)
	}
	if err := benchmark(&p, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "natsbench:", err)
		os.Exit(1)
	}
}

func parse(args []string) (params, error) {
	p := params{}
	if len(args) == 0 {
		return p, errors.New("usage: natsbench <pinned-producer|pinned-consumer|table> [flags]")
	}
	p.Workload = args[0]
	fs := flag.NewFlagSet("natsbench", flag.ContinueOnError)
	fs.StringVar(&p.URL, "url", "nats://127.0.0.1:4222", "server URL")
	fs.IntVar(&p.Actors, "actors", 1, "producers or consumers, each on its own stream and connection")
	fs.IntVar(&p.MessageSize, "message-size", 1000, "payload bytes per message")
	fs.IntVar(&p.MessagesPerBatch, "messages-per-batch", 1000, "messages per batch (in flight at once, or one atomic batch)")
	fs.DurationVar(&p.duration, "duration", 10*time.Second, "measured time per actor")
	fs.Float64Var(&p.RateLimitMBps, "rate-limit", 0, "aggregate cap in MB/s; 0 = none")
	fs.BoolVar(&p.Atomic, "atomic", false, "publish each batch as one JetStream atomic batch (needs allow_atomic)")
	fs.IntVar(&p.PrefillBatches, "prefill-batches", prefillBatchesMin, "batches per stream written before pinned-consumer")
	fs.BoolVar(&p.JSON, "json", false, "print one JSON object")
	if err := fs.Parse(args[1:]); err != nil {
		return p, err
	}
	p.Duration = p.duration.String()
	switch {
	case p.Workload != "pinned-producer" && p.Workload != "pinned-consumer":
		return p, fmt.Errorf("workload %q: want pinned-producer or pinned-consumer", p.Workload)
	case p.Actors < 1 || p.Actors > actorsMax:
		return p, fmt.Errorf("--actors must be 1..%d", actorsMax)
	case p.MessageSize < 1 || p.MessageSize > messageSizeMax:
		return p, fmt.Errorf("--message-size must be 1..%d", messageSizeMax)
	case p.MessagesPerBatch < 1 || p.MessagesPerBatch > messagesPerBatchMax:
		return p, fmt.Errorf("--messages-per-batch must be 1..%d", messagesPerBatchMax)
	case p.duration <= 0 || p.PrefillBatches < 1:
		return p, errors.New("--duration and --prefill-batches must be positive")
	}
	return p, nil
}

// worker is one actor's request logic: one batch sent or read per step.
type worker interface {
	step() (messages uint64, err error)
	close()
}

func benchmark(p *params, out io.Writer) error {
	fmt.Fprintf(os.Stderr, "natsbench %s: url=%s actors=%d message_size=%d messages_per_batch=%d duration=%s rate_limit=%g atomic=%v\n",
		p.Workload, p.URL, p.Actors, p.MessageSize, p.MessagesPerBatch, p.Duration, p.RateLimitMBps, p.Atomic)
	workers := make([]worker, p.Actors)
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.close()
			}
		}
	}()
	for i := range workers {
		w, err := newWorker(p, i)
		if err != nil {
			return fmt.Errorf("actor %d: %w", i, err)
		}
		workers[i] = w
	}
	actors := make([]*stats.Actor, p.Actors)
	errs := make([]error, p.Actors)
	var wg sync.WaitGroup
	for i, w := range workers {
		kind := strings.TrimPrefix(p.Workload, "pinned-")
		actors[i] = stats.NewActor(kind, i)
		wg.Go(func() { errs[i] = drive(p, w, actors[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	r := result{Params: *p, Summary: stats.Summarize(actors)}
	if p.JSON {
		return json.NewEncoder(out).Encode(r)
	}
	fmt.Fprintf(out, "%d actors: %.2f MB/s %.0f msg/s; latency ms p50 %.3f p99 %.3f p999 %.3f\n",
		r.Actors, r.MBPerSec, r.MsgsPerSec, r.P50Ms, r.P99Ms, r.P999Ms)
	return nil
}

// newWorker connects actor i. A failed one is a nil interface, not an
// interface holding a nil pointer, so the cleanup can tell.
func newWorker(p *params, i int) (worker, error) {
	if p.Workload == "pinned-producer" {
		pr, err := newProducer(p, i)
		if err != nil {
			return nil, err
		}
		return pr, nil
	}
	cs, err := newConsumer(p, i)
	if err != nil {
		return nil, err
	}
	return cs, nil
}

// drive runs one actor for the duration, one batch at a time.
func drive(p *params, w worker, a *stats.Actor) error {
	pace := stats.Pacer{BytesPerSec: p.RateLimitMBps * stats.BytesPerMB / float64(p.Actors)}
	batchBytes := uint64(p.MessageSize) * uint64(p.MessagesPerBatch)
	a.Start = time.Now()
	a.End = a.Start
	deadline := a.Start.Add(p.duration)
	for time.Now().Before(deadline) {
		pace.Wait(batchBytes)
		sent := time.Now()
		n, err := w.step()
		if err != nil {
			return err
		}
		a.End = time.Now()
		a.Record(a.End.Sub(sent), n, n*uint64(p.MessageSize))
	}
	return nil
}
