package sim

// A long run (iggy-sim -seed N -long) is one seed for ten simulated
// minutes or longRunOpsMax answered ops, whichever comes first, with the
// faults coming and going: storms of the seed's faults alternate with
// calms in which no new fault is drawn (those in course run out) and
// every replica that is down comes back, so the clients make progress
// between storms. It is for the bugs that need time: segments rotating
// (1 MiB each) many times, checkpoints and journal wraps many times over,
// repair and state transfer after every storm. Then the usual heal, read-back
// and oracles.

// Long run bounds.
const (
	longRunTicks       = 60_000 // ten simulated minutes of 10 ms ticks
	longRunOpsMax      = 100_000
	longStormTicksMin  = 300
	longStormTicksMax  = 4000
	longCalmTicksMin   = 200
	longCalmTicksMax   = 2000
	markLongCalm       = "sim.long.calm"
	markLongStormAgain = "sim.long.storm_again"
)

// Lengthen makes k a long run's knobs.
func Lengthen(k Knobs) Knobs {
	k.Long, k.FaultTicks = true, longRunTicks
	return k
}

// longPhases switches a long run between storms and calms.
func (w *World) longPhases() {
	switch {
	case w.calmUntil > 0 && w.tick >= w.calmUntil:
		w.calmUntil = 0
		w.stormUntil = w.tick + w.drawTicks(longStormTicksMin, longStormTicksMax)
		w.marks.Hit(markLongStormAgain)
		w.event("storm until tick %d", w.stormUntil)
	case w.calmUntil == 0 && w.tick >= w.stormUntil && w.stormUntil > 0:
		w.calmUntil = w.tick + w.drawTicks(longCalmTicksMin, longCalmTicksMax)
		w.marks.Hit(markLongCalm)
		w.event("calm until tick %d", w.calmUntil)
		for _, h := range w.hosts {
			h.pausedUntil = 0
			if h.node == nil {
				h.restartAt = w.tick
			}
		}
	case w.stormUntil == 0:
		w.stormUntil = w.tick + w.drawTicks(longStormTicksMin, longStormTicksMax)
	}
}

func (w *World) drawTicks(lo, hi uint64) uint64 { return lo + w.rng.Uint64N(hi-lo+1) }

// calm: a long run between storms.
func (w *World) calm() bool { return w.calmUntil > 0 }

// longDone: a long run answered its ops.
func (w *World) longDone() bool { return w.knobs.Long && w.ops >= longRunOpsMax }
