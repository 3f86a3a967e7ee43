package main

import (
	"log/slog"

	"golang.org/x/sys/unix"
)

// raiseOpenFileLimit sets the soft open-file limit to the hard one (OPS-14):
// every partition holds segment, index and offset files open. A refusal
// is logged; the server runs on with the limit it has.
func raiseOpenFileLimit(log *slog.Logger) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		log.Warn("cannot read the open-file limit", "err", err)
		return
	}
	if lim.Cur != lim.Max {
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			log.Warn("cannot raise the open-file limit to the hard limit", "hard", lim.Max, "err", err)
			return
		}
	}
	log.Info("open-file limit raised to the hard limit", "limit", lim.Max)
}
