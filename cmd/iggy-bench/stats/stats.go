// Package stats holds the measurements of iggy-bench (and of the NATS helper
// of scripts/bench-vs-nats.sh, so both report by the same definitions):
// throughput is the total data over the time of the slowest actor, latency
// percentiles are each actor's, averaged over the actors (TOOL-15).
package stats

import (
	"math"
	"slices"
	"time"

	"github.com/iggygo/iggy/internal/assert"
)

// latencySamplesMax bounds the latencies one actor keeps; past it the actor
// keeps a uniform reservoir sample, so percentiles stay unbiased and memory
// stays at 8 bytes per sample whatever the run length.
const latencySamplesMax = 1 << 20

// BytesPerMB is the MB of MB/s: 10^6 bytes, as iggy-bench reports it.
const BytesPerMB = 1e6

// Actor is what one actor measured during the measured phase (warm-up
// excluded). It is owned by the actor's goroutine until the run ends.
type Actor struct {
	Kind      string // "producer" or "consumer"
	ID        int
	Start     time.Time // first measured request sent
	End       time.Time // last measured reply received
	messages  uint64
	bytes     uint64 // payload bytes (message size x messages)
	batches   uint64
	latencies []time.Duration
	rng       uint64 // xorshift state for the reservoir
}

// NewActor starts the measurements of one actor.
func NewActor(kind string, id int) *Actor {
	return &Actor{Kind: kind, ID: id, rng: uint64(id)*0x9E3779B97F4A7C15 + 1}
}

// Record adds one completed request: its latency and what it carried.
func (s *Actor) Record(latency time.Duration, messages, bytes uint64) {
	if latency < 0 {
		assert.Failf("negative latency %v", latency)
	}
	s.batches++
	s.messages += messages
	s.bytes += bytes
	if len(s.latencies) < latencySamplesMax {
		s.latencies = append(s.latencies, latency)
		return
	}
	// Reservoir sampling (Algorithm R): sample k replaces a kept one with
	// probability latencySamplesMax/k.
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	if j := s.rng % s.batches; j < latencySamplesMax {
		s.latencies[j] = latency
	}
}

// Elapsed is the actor's measured time.
func (s *Actor) Elapsed() time.Duration {
	if s.End.Before(s.Start) {
		return 0
	}
	return s.End.Sub(s.Start)
}

// Percentile is the nearest-rank percentile (p in (0, 1]) of sorted
// latencies: the smallest value with at least p of the samples at or below it.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if p <= 0 || p > 1 {
		assert.Failf("percentile %v outside (0, 1]", p)
	}
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// latencySummary holds one actor's latency percentiles.
type latencySummary struct {
	p50, p90, p99, p999, max, avg time.Duration
}

func summarizeLatencies(latencies []time.Duration) latencySummary {
	if len(latencies) == 0 {
		return latencySummary{}
	}
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	var sum time.Duration
	for _, l := range sorted {
		sum += l
	}
	return latencySummary{
		p50: Percentile(sorted, 0.50), p90: Percentile(sorted, 0.90),
		p99: Percentile(sorted, 0.99), p999: Percentile(sorted, 0.999),
		max: sorted[len(sorted)-1], avg: sum / time.Duration(len(sorted)),
	}
}

// Summary is the result of a group of actors. Throughput is the total data
// over the time of the slowest actor; latencies are each actor's percentile
// averaged over the actors (TOOL-15).
type Summary struct {
	Actors        int     `json:"actors"`
	TotalMessages uint64  `json:"total_messages"`
	TotalBytes    uint64  `json:"total_bytes"`
	TotalBatches  uint64  `json:"total_batches"`
	DurationSec   float64 `json:"duration_sec"` // of the slowest actor
	MBPerSec      float64 `json:"mb_per_sec"`
	MsgsPerSec    float64 `json:"msgs_per_sec"`
	P50Ms         float64 `json:"p50_ms"`
	P90Ms         float64 `json:"p90_ms"`
	P99Ms         float64 `json:"p99_ms"`
	P999Ms        float64 `json:"p999_ms"`
	MaxMs         float64 `json:"max_ms"`
	AvgMs         float64 `json:"avg_ms"`
}

// Summarize combines actors' measurements; nil or empty gives a zero Summary.
func Summarize(actors []*Actor) Summary {
	s := Summary{Actors: len(actors)}
	if len(actors) == 0 {
		return s
	}
	var slowest time.Duration
	var p50, p90, p99, p999, maxSum, avg float64
	for _, a := range actors {
		s.TotalMessages += a.messages
		s.TotalBytes += a.bytes
		s.TotalBatches += a.batches
		slowest = max(slowest, a.Elapsed())
		l := summarizeLatencies(a.latencies)
		p50 += ms(l.p50)
		p90 += ms(l.p90)
		p99 += ms(l.p99)
		p999 += ms(l.p999)
		maxSum += ms(l.max)
		avg += ms(l.avg)
	}
	n := float64(len(actors))
	s.P50Ms, s.P90Ms, s.P99Ms, s.P999Ms, s.MaxMs, s.AvgMs = p50/n, p90/n, p99/n, p999/n, maxSum/n, avg/n
	s.DurationSec = slowest.Seconds()
	if s.DurationSec > 0 {
		s.MBPerSec = float64(s.TotalBytes) / BytesPerMB / s.DurationSec
		s.MsgsPerSec = float64(s.TotalMessages) / s.DurationSec
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pacerSlackMax is how far an actor may fall behind its rate before the
// pacer forgets the debt, so a stall is not followed by a burst.
const pacerSlackMax = time.Second

// Pacer spaces an actor's requests to its share of an aggregate rate.
type Pacer struct {
	BytesPerSec float64 // 0: unlimited
	next        time.Time
}

// Wait sleeps until the next request of bytes may go.
func (pc *Pacer) Wait(bytes uint64) {
	if pc.BytesPerSec <= 0 {
		return
	}
	now := time.Now()
	if pc.next.IsZero() || now.Sub(pc.next) > pacerSlackMax {
		pc.next = now
	}
	if d := pc.next.Sub(now); d > 0 {
		time.Sleep(d)
	}
	pc.next = pc.next.Add(time.Duration(float64(bytes) / pc.BytesPerSec * float64(time.Second)))
}
