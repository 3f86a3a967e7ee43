package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/iggygo/iggy/flight"
	"github.com/iggygo/iggy/flight/clients"
)

// flightFlags steer -replay of a production flight recorder dump (a
// simulator trace ignores them).
var flightFlags = struct {
	until        *int
	print, check *bool
	force        *bool
	data         *string
}{
	until: flag.Int("until", 0, "with -replay of a flight dump: stop after N inputs"),
	print: flag.Bool("print", false, "with -replay of a flight dump: print each input and the core's outputs"),
	check: flag.Bool("check", false, "with -replay of a flight dump: check each Ready (replies to open connections, disk ids, one boot) and run the one-node oracles over the clients' history"),
	force: flag.Bool("force", false, "with -replay of a flight dump: replay a dump of another build"),
	data:  flag.String("data", "", "with -replay of a flight dump: the server's data directory, where poll reads recorded by digest are read back"),
}

// isFlightDump reports whether path opens with a flight dump's magic.
func isFlightDump(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return flight.IsDump(head[:n])
}

// runFlightReplay steps one server's cores through its dump.
func runFlightReplay(path string) int {
	f, err := os.Open(path)
	if err != nil {
		fatal(err)
	}
	defer f.Close()
	o := flight.Options{Until: *flightFlags.until, Check: *flightFlags.check, Force: *flightFlags.force, DataDir: *flightFlags.data}
	var hist *clients.History
	if o.Check {
		hist = clients.NewHistory()
		o.Clients = hist
	}
	var out *bufio.Writer
	if *flightFlags.print {
		out = bufio.NewWriterSize(os.Stdout, 1<<16)
		defer out.Flush()
		o.Print = out
	}
	res, err := flight.Replay(f, o)
	if out != nil {
		out.Flush()
	}
	h := res.Header
	if err != nil {
		var d *flight.Divergence
		if errors.As(err, &d) {
			fmt.Printf("FAIL: replay of %s: %v (rerun with -until %d -print to see the inputs up to there)\n", path, err, d.Input)
		} else {
			fmt.Printf("FAIL: replay of %s: %v\n", path, err)
		}
		return 1
	}
	state := "replayed ok: every Ready matches the server's"
	if !res.Complete {
		state = fmt.Sprintf("stopped after %d inputs (-until)", res.Inputs)
	}
	fmt.Printf("flight dump (%s, build %s, %d shards): inputs=%d takes=%d hash=%s server=%s %s\n",
		h.Reason, h.Build, h.Shards, res.Inputs, res.Takes, res.Hash, h.Hash, state)
	if hist == nil {
		return 0
	}
	return printVerdicts(hist)
}

// printVerdicts reports each oracle's verdict on the clients' history of a
// -check replay, and fails the run on a violation.
func printVerdicts(hist *clients.History) int {
	s := hist.Stats()
	fmt.Printf("clients' history: appends=%d reads=%d (with messages %d) offset stores=%d gets=%d\n",
		s.Appends, s.Reads, s.ReadsWithMessages, s.Stores, s.Gets)
	rc := 0
	for _, v := range hist.Judge() {
		fmt.Printf("oracle %s: %s\n", v.Oracle, v.Result)
		if v.Result != "ok" {
			rc = 1
			fmt.Print(v.Detail)
		}
	}
	return rc
}
