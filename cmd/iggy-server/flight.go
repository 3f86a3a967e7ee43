package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/flight"
)

// flightBox is the process's flight recorder and where its dumps go; nil
// when debug.flight_recorder is off.
type flightBox struct {
	rec *flight.Recorder
	dir string
	log *slog.Logger
	// once: a fatal error and the panic it may cause dump once.
	once sync.Once
}

func newFlightBox(cfg *config.Config, nc node.Config, shards int, log *slog.Logger) *flightBox {
	fr := cfg.Debug.FlightRecorder
	if !fr.Enabled {
		return nil
	}
	dir := fr.DumpPath
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.System.Path, dir)
	}
	log.Info("flight recorder on", "ring_size", fr.RingSize, "dump_path", dir)
	return &flightBox{rec: flight.NewRecorder(int(fr.RingSize), nc, shards), dir: dir, log: log}
}

// shard is shard id's recorder, or nil.
func (b *flightBox) shard(id uint8) *flight.Shard {
	if b == nil {
		return nil
	}
	return b.rec.Shard(id)
}

// bytes is a dump in memory (the diagnostic ZIP's part), nil when off.
func (b *flightBox) bytes(reason string) []byte {
	if b == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := b.rec.Dump(&buf, reason); err != nil {
		return nil
	}
	return buf.Bytes()
}

// toFile writes a dump under the dump directory and logs where.
func (b *flightBox) toFile(reason string) {
	if b == nil {
		return
	}
	name := filepath.Join(b.dir, fmt.Sprintf("flight-%s-%d.trace", time.Now().UTC().Format("20060102T150405"), os.Getpid()))
	err := os.MkdirAll(b.dir, 0o750)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			err = b.rec.Dump(f, reason)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		b.log.Error("flight recorder: cannot write the dump", "path", name, "err", err)
		return
	}
	b.log.Warn("flight recorder dumped; replay it with iggy-sim -replay", "path", name, "reason", reason)
}

// crashed dumps once, on the first fatal error or panic of a loop.
func (b *flightBox) crashed(reason string) {
	b.once.Do(func() { b.toFile("fatal: " + reason) })
}

// dumpOnSignal writes a dump on each SIGUSR2 until stop is closed.
func (b *flightBox) dumpOnSignal(stop <-chan struct{}) {
	if b == nil {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	go func() {
		defer signal.Stop(sig)
		for {
			select {
			case <-stop:
				return
			case <-sig:
				b.toFile("SIGUSR2")
			}
		}
	}()
}
