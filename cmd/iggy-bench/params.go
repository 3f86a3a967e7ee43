package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Workloads.
const (
	workloadPinnedProducer         = "pinned-producer"
	workloadPinnedConsumer         = "pinned-consumer"
	workloadPinnedProducerConsumer = "pinned-producer-and-consumer"
	workloadBalancedProducer       = "balanced-producer"
	workloadConsumerGroup          = "consumer-group"
)

var workloads = []string{workloadPinnedProducer, workloadPinnedConsumer, workloadPinnedProducerConsumer,
	workloadBalancedProducer, workloadConsumerGroup}

// Bounds on the parameters, far above what the 2-core machines use.
const (
	actorsMax           = 1024
	streamsMax          = 1024
	partitionsMax       = 1024
	messageSizeMax      = 16 << 20
	messagesPerBatchMax = 100_000
	batchBytesMax       = 60 << 20 // under the protocol's 64 MiB frame
	// prefillBatchesPerActorDefault is how much each consumer partition gets
	// written before a consumer workload when --total-messages is not given.
	prefillBatchesPerActorDefault = 100
)

// params is a run's configuration, echoed at the top of its output.
type params struct {
	Workload         string  `json:"workload"`
	Addr             string  `json:"addr"`
	Transport        string  `json:"transport"`
	Username         string  `json:"-"`
	Password         string  `json:"-"`
	Actors           int     `json:"actors"`
	Streams          int     `json:"streams"`
	Partitions       int     `json:"partitions"`
	MessageSize      int     `json:"message_size"`
	MessagesPerBatch int     `json:"messages_per_batch"`
	TotalMessages    uint64  `json:"total_messages,omitempty"`
	Duration         string  `json:"duration,omitempty"`
	RateLimitMBps    float64 `json:"rate_limit_mb_per_sec,omitempty"`
	Warmup           string  `json:"warmup,omitempty"`
	Durability       string  `json:"durability"`
	PrefillMessages  uint64  `json:"prefill_messages,omitempty"`
	StreamPrefix     string  `json:"stream_prefix"`
	MaxTopicSize     string  `json:"max_topic_size,omitempty"`
	SegmentSize      string  `json:"segment_size,omitempty"`
	JSON             bool    `json:"-"`
	Cleanup          bool    `json:"cleanup,omitempty"`
	ServerPID        int     `json:"server_pid,omitempty"`
	Cold             bool    `json:"cold,omitempty"`
	Idempotent       bool    `json:"idempotent,omitempty"`

	duration time.Duration
	warmup   time.Duration
	addrs    []string // Addr split: one node, or a replica set's nodes by replica id
}

// parseParams reads "workload [flags]" (flags may also come first).
func parseParams(args []string, errOut io.Writer) (params, error) {
	p := params{}
	fs := flag.NewFlagSet("iggy-bench", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&p.Addr, "addr", "127.0.0.1:8090", "server address; a replica set's node addresses comma-separated in replica-id order (pinned workloads, one partition: each actor connects to its partition's primary)")
	fs.StringVar(&p.Transport, "transport", "tcp", "tcp, quic or websocket (--addr is that transport's address)")
	fs.StringVar(&p.Username, "username", "iggy", "user to log in as")
	fs.StringVar(&p.Password, "password", "iggy", "password")
	fs.IntVar(&p.Actors, "actors", 1, "producers or consumers (pinned-producer-and-consumer: pairs)")
	fs.IntVar(&p.Streams, "streams", 0, "streams (pinned workloads: one per actor, the default)")
	fs.IntVar(&p.Partitions, "partitions", 0, "partitions per topic (default 1 pinned, actors otherwise)")
	fs.IntVar(&p.MessageSize, "message-size", 1000, "payload bytes per message")
	fs.IntVar(&p.MessagesPerBatch, "messages-per-batch", 1000, "messages per send or poll")
	fs.Uint64Var(&p.TotalMessages, "total-messages", 0, "messages in all (split over the actors); 0 with --duration")
	fs.DurationVar(&p.duration, "duration", 0, "measured time per actor (instead of --total-messages)")
	rate := fs.String("rate-limit", "", "aggregate cap, e.g. 800MB/s or 500 (MB/s); empty = none")
	fs.DurationVar(&p.warmup, "warmup", 0, "unmeasured paced traffic before measuring; consumers rewind after it")
	fs.StringVar(&p.Durability, "durability", "replicated", "topic durability: none, replicated or persisted")
	fs.Uint64Var(&p.PrefillMessages, "prefill-messages", 0, "messages written per consumer partition before a consumer workload (0 = automatic)")
	fs.StringVar(&p.StreamPrefix, "stream-prefix", "bench", "names of the streams this bench creates")
	fs.StringVar(&p.MaxTopicSize, "max-topic-size", "", `topic option max_topic_size, e.g. "2 GiB" (long runs: the server's cleaner drops old segments); empty = server default`)
	fs.StringVar(&p.SegmentSize, "segment-size", "", `topic option segment_size, e.g. "256 MiB"; empty = server default`)
	fs.BoolVar(&p.JSON, "json", false, "print one JSON object instead of text")
	fs.BoolVar(&p.Idempotent, "idempotent", false, "producers send as idempotent producers (send_producer_messages, one producer id per partition, IDEM-3)")
	fs.BoolVar(&p.Cleanup, "cleanup", false, "delete the bench streams at the end")
	fs.BoolVar(&p.Cold, "cold", false, "consumer workloads: drop the page cache after the prefill, so the measured reads come from the device (needs root and a server on this machine; a warm-up would warm it again)")
	fs.IntVar(&p.ServerPID, "server-pid", 0, "the server's process id (same machine): report its CPU seconds and the bench's over the measured phase (after the logins and the warm-up), and per GB")
	fs.Usage = func() {
		fmt.Fprintf(errOut, "usage: iggy-bench <%s> [flags]\n", strings.Join(workloads, "|"))
		fs.PrintDefaults()
	}
	workload, rest := splitWorkload(args)
	if err := fs.Parse(rest); err != nil {
		return p, err
	}
	if workload == "" && fs.NArg() > 0 {
		workload = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return p, err
		}
	}
	if fs.NArg() > 0 {
		return p, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	p.Workload = workload
	var err error
	if p.RateLimitMBps, err = parseRate(*rate); err != nil {
		return p, err
	}
	p.applyDefaults()
	p.addrs = strings.Split(p.Addr, ",")
	return p, p.validate()
}

// splitWorkload takes a leading workload name off args.
func splitWorkload(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// parseRate reads "800MB/s", "800 MB/s", "800" (MB/s) or "1.5GB/s".
func parseRate(s string) (float64, error) {
	t := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	if t == "" {
		return 0, nil
	}
	t = strings.TrimSuffix(t, "/S")
	scale := 1.0
	switch {
	case strings.HasSuffix(t, "GB"):
		scale, t = 1000, strings.TrimSuffix(t, "GB")
	case strings.HasSuffix(t, "MB"):
		t = strings.TrimSuffix(t, "MB")
	case strings.HasSuffix(t, "KB"):
		scale, t = 0.001, strings.TrimSuffix(t, "KB")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("--rate-limit %q: want e.g. 800MB/s", s)
	}
	return v * scale, nil
}

func (p *params) pinned() bool {
	return p.Workload == workloadPinnedProducer || p.Workload == workloadPinnedConsumer ||
		p.Workload == workloadPinnedProducerConsumer
}

func (p *params) applyDefaults() {
	if p.Streams == 0 {
		p.Streams = 1
		if p.pinned() {
			p.Streams = p.Actors
		}
	}
	if p.Partitions == 0 {
		p.Partitions = p.Actors
		if p.pinned() {
			p.Partitions = 1
		}
	}
	if p.duration > 0 {
		p.Duration = p.duration.String()
	}
	if p.warmup > 0 {
		p.Warmup = p.warmup.String()
	}
}

func (p *params) validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	known := false
	for _, w := range workloads {
		known = known || p.Workload == w
	}
	check(known, "workload %q: want one of %s", p.Workload, strings.Join(workloads, ", "))
	_, known = clientTransports[p.Transport]
	check(known, "--transport %q: want tcp, quic or websocket", p.Transport)
	check(p.Actors >= 1 && p.Actors <= actorsMax, "--actors must be 1..%d", actorsMax)
	check(p.Streams >= 1 && p.Streams <= streamsMax, "--streams must be 1..%d", streamsMax)
	check(p.Partitions >= 1 && p.Partitions <= partitionsMax, "--partitions must be 1..%d", partitionsMax)
	check(!p.pinned() || p.Streams == p.Actors, "pinned workloads give every actor its own stream: --streams must equal --actors")
	check(p.Streams <= p.Actors, "--streams must not exceed --actors")
	check(p.MessageSize >= 1 && p.MessageSize <= messageSizeMax, "--message-size must be 1..%d", messageSizeMax)
	check(p.MessagesPerBatch >= 1 && p.MessagesPerBatch <= messagesPerBatchMax, "--messages-per-batch must be 1..%d", messagesPerBatchMax)
	check(uint64(p.MessageSize)*uint64(p.MessagesPerBatch) <= batchBytesMax, "a batch must stay under %d bytes", batchBytesMax)
	check((p.TotalMessages > 0) != (p.duration > 0), "give exactly one of --total-messages and --duration")
	check(p.duration >= 0 && p.warmup >= 0, "durations must not be negative")
	check(p.Durability == "none" || p.Durability == "replicated" || p.Durability == "persisted",
		"--durability %q: want none, replicated or persisted", p.Durability)
	check(p.ServerPID >= 0, "--server-pid must not be negative")
	check(p.StreamPrefix != "" && len(p.StreamPrefix) <= 200, "--stream-prefix must be 1..200 bytes")
	check(!p.Cold || p.Workload == workloadPinnedConsumer || p.Workload == workloadConsumerGroup,
		"--cold applies to pinned-consumer and consumer-group")
	check(!p.Idempotent || p.Workload == workloadPinnedProducer || p.Workload == workloadPinnedProducerConsumer,
		"--idempotent applies to pinned-producer and pinned-producer-and-consumer (a producer's sequences are per partition)")
	check(!p.Cold || p.warmup == 0, "--cold reads from the device: a warm-up would fill the page cache again")
	check(!p.cluster() || p.pinned() && p.Partitions == 1,
		"a replica set (--addr with several nodes) takes pinned workloads with one partition: each actor's connection goes to its partition's primary")
	for _, a := range p.addrs {
		check(a != "", "--addr %q: an empty address", p.Addr)
	}
	return errors.Join(errs...)
}

// cluster reports a replica set: actors connect to their partition's primary.
func (p *params) cluster() bool { return len(p.addrs) > 1 }

// batchBytes is the payload of one batch.
func (p *params) batchBytes() uint64 { return uint64(p.MessageSize) * uint64(p.MessagesPerBatch) }

// batchesPerActor is each actor's share of --total-messages, in whole batches
// (at least one).
func (p *params) batchesPerActor() uint64 {
	perActor := p.TotalMessages / uint64(p.Actors)
	return max(1, perActor/uint64(p.MessagesPerBatch))
}

// messagesPerConsumer is what each consumer reads before it stops: its share
// of --total-messages in whole batches; 0 (read until the time is up) when
// the run has a duration instead.
func (p *params) messagesPerConsumer() uint64 {
	if p.TotalMessages == 0 {
		return 0
	}
	return p.batchesPerActor() * uint64(p.MessagesPerBatch)
}

// prefillBatchesPerPartition is how many batches a consumer workload writes
// into each partition it reads before it starts.
func (p *params) prefillBatchesPerPartition(partitionsRead int) uint64 {
	if p.PrefillMessages > 0 {
		return max(1, p.PrefillMessages/uint64(p.MessagesPerBatch))
	}
	if p.TotalMessages > 0 {
		total := p.batchesPerActor() * uint64(p.Actors)
		return max(1, (total+uint64(partitionsRead)-1)/uint64(partitionsRead))
	}
	return prefillBatchesPerActorDefault
}
