package sim

import (
	"fmt"
	"strings"
)

// eventsKept bounds the world events a failure report shows (the last ones).
const eventsKept = 48

// event notes a world event (crash, boot, fault, node log) for the failure
// report; only the last eventsKept are kept.
func (w *World) event(format string, args ...any) {
	line := fmt.Sprintf("tick %d: ", w.tick) + fmt.Sprintf(format, args...)
	if len(w.events) == eventsKept {
		copy(w.events, w.events[1:])
		w.events = w.events[:eventsKept-1]
	}
	w.events = append(w.events, line)
}

func (w *World) eventReport() string {
	if len(w.events) == 0 {
		return ""
	}
	return "last world events:\n" + strings.Join(w.events, "\n") + "\n"
}
