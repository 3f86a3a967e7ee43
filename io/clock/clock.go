// Package clock holds time as the core sees it: ticks it counts, plus the wall
// clock it stamps batches with. Production reads a real clock; the simulator
// drives a drifting one. The core never asks for the time.
package clock

// Tick advances the core's time. Ticks count monotonically; NowMicros is the
// wall clock in microseconds since the Unix epoch at this tick.
type Tick struct {
	Ticks     uint64
	NowMicros uint64
}

// TickMillis is how many milliseconds one tick lasts in production.
const TickMillis = 10
