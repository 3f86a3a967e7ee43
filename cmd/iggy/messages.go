package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

const (
	// sendBatchMessagesMax is the most messages one send carries; longer
	// input goes in several batches.
	sendBatchMessagesMax = 1000
	// stdinLineBytesMax bounds one message read from standard input.
	stdinLineBytesMax = 10 << 20
	// pollCountMax is the largest --count.
	pollCountMax = 100_000
)

func (a *app) messageCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "message", Aliases: []string{"m"}, Short: "Send and poll messages",
		Example: "  echo hello | iggy message send orders events\n  iggy message poll orders events 1 --first --count 10"}
	cmd.AddCommand(a.sendCommand(), a.pollCommand())
	return cmd
}

type sendFlags struct {
	partition int64
	key       string
	file      string
	headers   []string
}

func (a *app) sendCommand() *cobra.Command {
	var f sendFlags
	cmd := &cobra.Command{
		Use:   "send STREAM TOPIC [MESSAGE...]",
		Short: "Send messages: the arguments, a file, or standard input one message per line",
		Example: "  iggy message send orders events \"first\" \"second\"\n" +
			"  printf 'a\\nb\\n' | iggy message send orders events --partition 1\n" +
			"  iggy message send orders events --file order.json --key customer-7 --header source:string:web",
		Args: cobra.MinimumNArgs(2),
		RunE: a.withClient(func(c api, args []string) error {
			part, err := f.partitioning()
			if err != nil {
				return err
			}
			headers, err := parseHeaders(f.headers)
			if err != nil {
				return err
			}
			payloads, err := a.payloads(args[2:], f.file)
			if err != nil {
				return err
			}
			offsets := []uint64{}
			for start := 0; start < len(payloads); start += sendBatchMessagesMax {
				batch := payloads[start:min(start+sendBatchMessagesMax, len(payloads))]
				msgs := make([]client.Message, len(batch))
				for i, p := range batch {
					msgs[i] = client.Message{Payload: p, Headers: headers}
				}
				first, err := c.SendMessages(id(args[0]), id(args[1]), part, msgs)
				if err != nil {
					return err
				}
				offsets = append(offsets, first)
			}
			return a.done(fmt.Sprintf("%d messages sent", len(payloads)),
				map[string]any{"messages_count": len(payloads), "first_offsets": offsets})
		}),
	}
	cmd.Flags().Int64Var(&f.partition, "partition", -1, "send to this partition id (default: balanced)")
	cmd.Flags().StringVar(&f.key, "key", "", "messages key: partition by its hash")
	cmd.Flags().StringVar(&f.file, "file", "", "send the file's contents as one message")
	cmd.Flags().StringArrayVar(&f.headers, "header", nil, "user header key:kind:value (kind: string, bool, int8..int64, uint8..uint64, float32, float64, raw as base64); repeatable")
	return cmd
}

func (f *sendFlags) partitioning() (wire.Partitioning, error) {
	switch {
	case f.partition >= 0 && f.key != "":
		return wire.Partitioning{}, usageErrorf("--partition and --key exclude each other")
	case f.partition >= 0:
		if f.partition > int64(^uint32(0)) {
			return wire.Partitioning{}, usageErrorf("--partition %d: too large", f.partition)
		}
		return wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: uint32(f.partition)}, nil
	case f.key != "":
		return wire.Partitioning{Kind: wire.PartitioningMessagesKey, Key: []byte(f.key)}, nil
	}
	return wire.Partitioning{Kind: wire.PartitioningBalanced}, nil
}

// payloads are the messages to send: the arguments, else the file, else
// standard input's lines.
func (a *app) payloads(args []string, file string) ([][]byte, error) {
	switch {
	case len(args) > 0 && file != "":
		return nil, usageErrorf("messages as arguments and --file exclude each other")
	case len(args) > 0:
		out := make([][]byte, len(args))
		for i, m := range args {
			out[i] = []byte(m)
		}
		return out, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usageErrorf("--file: %v", err)
		}
		return [][]byte{b}, nil
	}
	sc := bufio.NewScanner(a.stdin)
	sc.Buffer(make([]byte, 64<<10), stdinLineBytesMax)
	var out [][]byte
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read standard input: %w", err)
	}
	if len(out) == 0 {
		return nil, usageErrorf("no messages: pass them as arguments, with --file, or on standard input")
	}
	return out, nil
}

// parseHeaders reads --header key:kind:value entries.
func parseHeaders(specs []string) (map[string]client.HeaderValue, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make(map[string]client.HeaderValue, len(specs))
	for _, s := range specs {
		parts := strings.SplitN(s, ":", 3)
		if len(parts) != 3 || parts[0] == "" {
			return nil, usageErrorf("--header %q: want key:kind:value", s)
		}
		kind, ok := wire.ValueKindNamed(strings.ToLower(parts[1]))
		if !ok {
			return nil, usageErrorf("--header %q: unknown kind %q", s, parts[1])
		}
		v, ok := headerValue(kind, parts[2])
		if !ok {
			return nil, usageErrorf("--header %q: %q is not a %s value", s, parts[2], kind.Name())
		}
		out[parts[0]] = client.HeaderValue{Kind: kind, Value: v}
	}
	return out, nil
}

type pollFlags struct {
	offset, timestamp  int64
	first, last, next  bool
	count              uint32
	consumer, group    string
	autoCommit, follow bool
	interval           time.Duration
	limit              uint64
}

func (a *app) pollCommand() *cobra.Command {
	var f pollFlags
	cmd := &cobra.Command{
		Use:   "poll STREAM TOPIC [PARTITION]",
		Short: "Poll messages by offset, timestamp, first, last or next",
		Example: "  iggy message poll orders events 1 --offset 0 --count 100\n" +
			"  iggy message poll orders events --group billing --next --auto-commit\n" +
			"  iggy -o json message poll orders events 1 --first --follow",
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err // before connecting: nothing is sent for a wrong command line
			}
			return a.withClient(func(c api, args []string) error { return a.poll(c, args, f) })(cmd, args)
		},
	}
	fl := cmd.Flags()
	fl.Int64Var(&f.offset, "offset", -1, "start at this offset")
	fl.Int64Var(&f.timestamp, "timestamp", -1, "start at this append time, µs since the epoch")
	fl.BoolVar(&f.first, "first", false, "start at the first message")
	fl.BoolVar(&f.last, "last", false, "read the last messages")
	fl.BoolVar(&f.next, "next", false, "start after the consumer's stored offset")
	fl.Uint32Var(&f.count, "count", 10, "messages to read per poll")
	fl.StringVar(&f.consumer, "consumer", "1", "consumer id or name")
	fl.StringVar(&f.group, "group", "", "poll as this consumer group (id or name) instead of --consumer")
	fl.BoolVar(&f.autoCommit, "auto-commit", false, "store the offset of the last message read")
	fl.BoolVar(&f.follow, "follow", false, "keep polling for new messages until interrupted")
	fl.DurationVar(&f.interval, "interval", 500*time.Millisecond, "pause between polls that found nothing, with --follow")
	fl.Uint64Var(&f.limit, "limit", 0, "with --follow, stop after this many messages (0: no limit)")
	return cmd
}

// strategy is the one start flag given (--first when none is).
func (f pollFlags) strategy() (wire.PollingKind, uint64, error) {
	var kinds []wire.PollingKind
	var value uint64
	if f.offset >= 0 {
		kinds, value = append(kinds, wire.PollOffset), uint64(f.offset)
	}
	if f.timestamp >= 0 {
		kinds, value = append(kinds, wire.PollTimestamp), uint64(f.timestamp)
	}
	for _, b := range []struct {
		set  bool
		kind wire.PollingKind
	}{{f.first, wire.PollFirst}, {f.last, wire.PollLast}, {f.next, wire.PollNext}} {
		if b.set {
			kinds = append(kinds, b.kind)
		}
	}
	switch len(kinds) {
	case 0:
		return wire.PollFirst, 0, nil
	case 1:
		return kinds[0], value, nil
	}
	return 0, 0, usageErrorf("give one of --offset, --timestamp, --first, --last, --next")
}

func (f pollFlags) consumerOf() wire.Consumer {
	if f.group != "" {
		return wire.Consumer{Kind: wire.ConsumerKindGroup, ID: id(f.group)}
	}
	return wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: id(f.consumer)}
}

func (f pollFlags) check() error {
	if _, _, err := f.strategy(); err != nil {
		return err
	}
	if f.count == 0 || f.count > pollCountMax {
		return usageErrorf("--count %d: want 1..%d", f.count, pollCountMax)
	}
	return nil
}

func (a *app) poll(c api, args []string, f pollFlags) error {
	kind, value, _ := f.strategy()
	var partition *uint32
	if len(args) == 3 {
		p, err := u32Arg("partition", args[2])
		if err != nil {
			return err
		}
		partition = &p
	}
	stream, topic := id(args[0]), id(args[1])
	if !f.follow {
		current, msgs, err := c.PollMessages(f.consumerOf(), stream, topic, partition, kind, value, f.count, f.autoCommit)
		if err != nil {
			return err
		}
		views, t := viewMessages(msgs)
		return a.show(map[string]any{"current_offset": current, "messages": views}, t)
	}
	return a.follow(c, stream, topic, partition, kind, value, f)
}

// follow polls until interrupted (or --limit messages), printing each
// message as it comes: a table row, or one JSON object per line.
func (a *app) follow(c api, stream, topic wire.Identifier, partition *uint32, kind wire.PollingKind, value uint64, f pollFlags) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var seen uint64
	for ctx.Err() == nil && (f.limit == 0 || seen < f.limit) {
		_, msgs, err := c.PollMessages(f.consumerOf(), stream, topic, partition, kind, value, f.count, f.autoCommit)
		if err != nil {
			return err
		}
		if f.limit > 0 && uint64(len(msgs)) > f.limit-seen {
			msgs = msgs[:f.limit-seen]
		}
		if err := a.printFollowed(msgs); err != nil {
			return err
		}
		seen += uint64(len(msgs))
		if len(msgs) > 0 && kind != wire.PollNext {
			// Go on after the last message read, wherever the poll began.
			kind, value = wire.PollOffset, msgs[len(msgs)-1].Offset+1
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(f.interval):
		}
	}
	return nil
}

func (a *app) printFollowed(msgs []client.ReceivedMessage) error {
	views, t := viewMessages(msgs)
	if a.flags.output == outputJSON {
		enc := json.NewEncoder(a.stdout)
		for _, v := range views {
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		return nil
	}
	t.headers = nil
	return a.show(nil, t)
}

type messageView struct {
	Partition       uint32            `json:"partition_id"`
	Offset          uint64            `json:"offset"`
	ID              string            `json:"id"`
	Timestamp       uint64            `json:"timestamp"`
	OriginTimestamp uint64            `json:"origin_timestamp"`
	Payload         string            `json:"payload"`
	PayloadEncoding string            `json:"payload_encoding"` // "utf8" or "base64"
	Headers         map[string]string `json:"headers,omitempty"`
}

func viewMessages(msgs []client.ReceivedMessage) ([]messageView, table) {
	views := []messageView{}
	t := table{headers: []string{"PARTITION", "OFFSET", "TIMESTAMP", "ID", "PAYLOAD", "HEADERS"}}
	for _, m := range msgs {
		v := messageView{Partition: m.Partition, Offset: m.Offset, ID: uuidText(m.ID), Timestamp: m.Timestamp,
			OriginTimestamp: m.OriginTimestamp, Payload: string(m.Payload), PayloadEncoding: "utf8"}
		if !utf8.Valid(m.Payload) {
			v.Payload, v.PayloadEncoding = base64.StdEncoding.EncodeToString(m.Payload), "base64"
		}
		if hs, err := m.HeaderMap(); err == nil && len(hs) > 0 {
			v.Headers = map[string]string{}
			for k, h := range hs {
				v.Headers[k] = wire.OptionText(wire.Option{Key: k, Kind: h.Kind, Value: h.Value})
			}
		}
		t.add(v.Partition, v.Offset, timeText(v.Timestamp), v.ID, v.Payload, headersText(v.Headers))
		views = append(views, v)
	}
	return views, t
}

func headersText(hs map[string]string) string {
	if len(hs) == 0 {
		return "-"
	}
	b, _ := json.Marshal(hs) // sorted keys
	return string(b)
}

func uuidText(id [16]byte) string {
	h := hex.EncodeToString(id[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
