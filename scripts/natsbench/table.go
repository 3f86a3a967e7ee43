package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/iggygo/iggy/cmd/iggy-bench/stats"
)

// table prints one row per (label, ours, nats) triple of arguments, each
// file holding one JSON result (iggy-bench's or natsbench's). A missing or
// unreadable result prints as "-": a failed run must not hide the others.
func table(out io.Writer, args []string) error {
	if len(args) == 0 || len(args)%3 != 0 {
		return fmt.Errorf("table wants LABEL OURS.json NATS.json triples, got %d arguments", len(args))
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tours MB/s\tNATS MB/s\tratio\tours p50 ms\tours p99 ms\tNATS p50 ms\tNATS p99 ms\t")
	for i := 0; i < len(args); i += 3 {
		ours, errOurs := readSummary(args[i+1])
		nats, errNats := readSummary(args[i+2])
		row := []string{args[i], "-", "-", "-", "-", "-", "-", "-"}
		if errOurs == nil {
			row[1], row[4], row[5] = fmt.Sprintf("%.1f", ours.MBPerSec), fmt.Sprintf("%.3f", ours.P50Ms), fmt.Sprintf("%.3f", ours.P99Ms)
		}
		if errNats == nil {
			row[2], row[6], row[7] = fmt.Sprintf("%.1f", nats.MBPerSec), fmt.Sprintf("%.3f", nats.P50Ms), fmt.Sprintf("%.3f", nats.P99Ms)
		}
		if errOurs == nil && errNats == nil && nats.MBPerSec > 0 {
			row[3] = fmt.Sprintf("%.2fx", ours.MBPerSec/nats.MBPerSec)
		}
		for _, cell := range row {
			fmt.Fprint(tw, cell, "\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func readSummary(path string) (stats.Summary, error) {
	var s stats.Summary
	raw, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(raw, &s)
}
