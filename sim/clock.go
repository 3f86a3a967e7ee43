package sim

import "github.com/iggygo/iggy/io/clock"

// The simulated wall clock starts at a fixed instant, so timestamps are
// reproducible.
const (
	startMicros   = 1_700_000_000_000_000
	microsPerTick = clock.TickMillis * 1000
)

// driftClock is one replica's wall clock: it runs fast or slow by a fixed
// rate and jumps when an operator or NTP steps it, forward or back. Ticks
// themselves never go back (they are the node's monotonic time).
type driftClock struct {
	ppm        int
	stepMicros int64
}

func (d *driftClock) at(tick uint64) clock.Tick {
	elapsed := int64(tick * microsPerTick)
	now := int64(startMicros) + elapsed + elapsed*int64(d.ppm)/1_000_000 + d.stepMicros
	return clock.Tick{Ticks: tick, NowMicros: uint64(now)}
}

// step moves the wall clock by delta µs (negative is back in time).
func (d *driftClock) step(delta int64) { d.stepMicros += delta }
