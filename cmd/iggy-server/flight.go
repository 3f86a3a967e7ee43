package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/flight"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// flightBox is the process's flight recorder and where its dumps go; nil
// when debug.flight_recorder is off.
type flightBox struct {
	rec *flight.Recorder
	dir string
	log *slog.Logger
	// once: a fatal error and the panic it may cause dump once.
	once sync.Once
	// seq numbers the dumps, so two in one second get two files.
	seq atomic.Uint64
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
	log.Info("flight recorder on", "ring_size", fr.RingSize, "dump_path", dir, "record_read_data", fr.RecordReadData)
	rec := flight.NewRecorder(flight.Config{RingBytes: int(fr.RingSize), Node: nc, Shards: shards, ReadData: fr.RecordReadData})
	return &flightBox{rec: rec, dir: dir, log: log}
}

// shard is shard id's recorder, or nil.
func (b *flightBox) shard(id uint8) *flight.Shard {
	if b == nil {
		return nil
	}
	return b.rec.Shard(id)
}

// forArchive is the diagnostic archive's part (snapshot.Sources): the dump
// when it fits in room bytes, else the dump goes to a file under the dump
// directory and the archive gets a note naming it. A dump is kept whole:
// cut, it would not replay.
func (b *flightBox) forArchive(room int) (string, []byte) {
	const reason = "diagnostic snapshot"
	var buf bytes.Buffer
	if err := b.rec.Dump(&buf, reason); err != nil {
		return "flight_recorder.txt", []byte(fmt.Sprintf("the flight recorder could not be dumped: %v\n", err))
	}
	if buf.Len() <= room {
		return "flight_recorder.trace", buf.Bytes()
	}
	name, err := b.save(reason, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return "flight_recorder.txt", []byte(fmt.Sprintf("the flight recorder's dump (%d bytes) did not fit in the archive and could not be written to %s: %v\n", buf.Len(), b.dir, err))
	}
	return "flight_recorder.txt", []byte(fmt.Sprintf("the flight recorder's dump (%d bytes) did not fit in the archive (room for %d); it was written to %s\n",
		buf.Len(), room, filepath.Join(b.dir, name)))
}

// toFile writes a dump under the dump directory, logs where, and returns
// the file's name (within the dump directory).
func (b *flightBox) toFile(reason string) (string, error) {
	return b.save(reason, func(w io.Writer) error { return b.rec.Dump(w, reason) })
}

// save writes a new dump file with write, logs where, and returns its name.
func (b *flightBox) save(reason string, write func(io.Writer) error) (string, error) {
	base := fmt.Sprintf("flight-%s-%d-%d.trace", time.Now().UTC().Format("20060102T150405"), os.Getpid(), b.seq.Add(1))
	name := filepath.Join(b.dir, base)
	err := os.MkdirAll(b.dir, 0o750)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			err = write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		b.log.Error("flight recorder: cannot write the dump", "path", name, "err", err)
		return "", err
	}
	b.log.Warn("flight recorder dumped; replay it with iggy-sim -replay", "path", name, "reason", reason)
	return base, nil
}

// dumpJob answers DumpFlightRecorder's job: a dump's file name, or 5
// FeatureUnavailable when the recorder is off, 1 Error when it cannot be
// written (the log says why).
func (b *flightBox) dumpJob(r compute.Request) compute.Result {
	if b == nil {
		return compute.Result{ID: r.ID, Code: uint32(wire.FeatureUnavailable)}
	}
	name, err := b.toFile("DumpFlightRecorder")
	if err != nil {
		return compute.Result{ID: r.ID, Code: uint32(wire.Error)}
	}
	return compute.Result{ID: r.ID, Data: []byte(name)}
}

// crashed dumps once, on the first fatal error or panic of a loop.
func (b *flightBox) crashed(reason string) {
	b.once.Do(func() { _, _ = b.toFile("fatal: " + reason) })
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
				_, _ = b.toFile("SIGUSR2")
			}
		}
	}()
}
