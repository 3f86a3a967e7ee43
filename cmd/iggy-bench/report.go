package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/iggygo/iggy/cmd/iggy-bench/stats"
)

// actorResult is one actor's line in the JSON output.
type actorResult struct {
	Kind string `json:"kind"`
	ID   int    `json:"id"`
	stats.Summary
}

// result is the JSON object a run prints: the parameters, the totals over
// every actor at the top level, and producers and consumers apart when a
// workload has both.
type result struct {
	Params params `json:"params"`
	stats.Summary
	Producers *stats.Summary `json:"producers,omitempty"`
	Consumers *stats.Summary `json:"consumers,omitempty"`
	PerActor  []actorResult  `json:"per_actor"`
	CPU       *cpuUsage      `json:"cpu,omitempty"` // with --server-pid
}

func buildResult(p *params, actors []*actor) result {
	var all, producers, consumers []*stats.Actor
	r := result{Params: *p}
	for _, a := range actors {
		all = append(all, a.st)
		if a.st.Kind == "producer" {
			producers = append(producers, a.st)
		} else {
			consumers = append(consumers, a.st)
		}
		r.PerActor = append(r.PerActor, actorResult{Kind: a.st.Kind, ID: a.st.ID, Summary: stats.Summarize([]*stats.Actor{a.st})})
	}
	r.Summary = stats.Summarize(all)
	if len(producers) > 0 && len(consumers) > 0 {
		ps, cs := stats.Summarize(producers), stats.Summarize(consumers)
		r.Producers, r.Consumers = &ps, &cs
	}
	return r
}

func writeJSON(w io.Writer, r result) error {
	enc := json.NewEncoder(w)
	return enc.Encode(r)
}

// describe is the one-line echo of a run's parameters.
func describe(p *params) string {
	var b strings.Builder
	fmt.Fprintf(&b, "iggy-bench %s: addr=%s transport=%s actors=%d streams=%d partitions=%d message_size=%d messages_per_batch=%d",
		p.Workload, p.Addr, p.Transport, p.Actors, p.Streams, p.Partitions, p.MessageSize, p.MessagesPerBatch)
	if p.TotalMessages > 0 {
		fmt.Fprintf(&b, " total_messages=%d", p.TotalMessages)
	} else {
		fmt.Fprintf(&b, " duration=%s", p.Duration)
	}
	rate := "none"
	if p.RateLimitMBps > 0 {
		rate = fmt.Sprintf("%gMB/s", p.RateLimitMBps)
	}
	fmt.Fprintf(&b, " rate_limit=%s warmup=%s durability=%s", rate, p.warmup, p.Durability)
	return b.String()
}

func writeText(w io.Writer, r result) {
	line := func(label string, s stats.Summary) {
		fmt.Fprintf(w, "%-10s %3d actors: %9.2f MB/s %11.0f msg/s  %d messages (%.1f MB) in %.2f s\n",
			label, s.Actors, s.MBPerSec, s.MsgsPerSec, s.TotalMessages, float64(s.TotalBytes)/stats.BytesPerMB, s.DurationSec)
		fmt.Fprintf(w, "%-10s latency ms (per actor, averaged): p50 %.3f  p90 %.3f  p99 %.3f  p999 %.3f  max %.3f  avg %.3f\n",
			"", s.P50Ms, s.P90Ms, s.P99Ms, s.P999Ms, s.MaxMs, s.AvgMs)
	}
	if r.Producers != nil {
		line("producers", *r.Producers)
		line("consumers", *r.Consumers)
	}
	line("total", r.Summary)
	if r.CPU != nil {
		fmt.Fprintf(w, "cpu        server %.2f s (%.3f s/GB), bench %.2f s (%.3f s/GB)\n",
			r.CPU.ServerSec, r.CPU.ServerSecPerGB, r.CPU.BenchSec, r.CPU.BenchSecPerGB)
	}
}
