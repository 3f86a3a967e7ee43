package httpapi

import (
	"math"
	"net/http"
	"strconv"

	"github.com/iggygo/iggy/wire"
)

// metricsStreamsMax bounds the streams one scrape reads topics of.
const metricsStreamsMax = 10_000

// GET /metrics (configurable path): the adapter's request metrics, then the
// node's gauges and per-topic series (OPS-3), read through the caller's own
// session, so a scrape shows what the caller may read and nothing more.
func (s *Server) getMetrics(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	p := &promWriter{}
	s.metrics.render(p)
	if s.opts.DiskWriteFailures != nil {
		p.family("disk_write_failures_total", "counter", "Partition writes, creates and syncs that failed; each breaks its partition until it is reopened.")
		p.sample("disk_write_failures_total", float64(s.opts.DiskWriteFailures()))
	}
	s.renderNode(c, p)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(p.b.String()))
	return nil
}

// renderNode writes the gauges a scrape reads from the node. A read the
// caller is not allowed (or that fails) leaves its families out.
func (s *Server) renderNode(c caller, p *promWriter) {
	if st, e := fetch(s, c, reading, wire.CmdGetStats, nil, wire.DecodeStats); e == nil {
		for _, g := range []struct {
			name, help string
			v          float64
		}{
			{"streams", "Streams on the node.", float64(st.StreamsCount)},
			{"topics", "Topics on the node.", float64(st.TopicsCount)},
			{"partitions", "Partitions on the node.", float64(st.PartitionsCount)},
			{"segments", "Segments on the node.", float64(st.SegmentsCount)},
			{"messages", "Messages on the node.", float64(st.MessagesCount)},
			{"clients", "Client connections on the node.", float64(st.ClientsCount)},
		} {
			p.family(g.name, "gauge", g.help)
			p.sample(g.name, g.v)
		}
	}
	if users, e := fetch(s, c, reading, wire.CmdGetUsers, nil, wire.DecodeUsers); e == nil {
		p.family("users", "gauge", "Users on the node.")
		p.sample("users", float64(len(users)))
	}
	s.renderTopics(c, p)
}

// topicSeries is one topic's values.
type topicSeries struct {
	labels                  []string
	size, messages, maxSize float64
}

// renderTopics writes topic_size_bytes, topic_messages and
// topic_max_size_bytes (+Inf when unlimited), labelled by stream and topic.
func (s *Server) renderTopics(c caller, p *promWriter) {
	streams, e := fetch(s, c, reading, wire.CmdGetStreams, nil, wire.DecodeStreams)
	if e != nil {
		return
	}
	var series []topicSeries
	for i, st := range streams {
		if i == metricsStreamsMax {
			break
		}
		body := encode(wire.StreamRef{StreamID: wire.NumericID(st.ID)}.Encode)
		topics, e := fetch(s, c, reading, wire.CmdGetTopics, body, wire.DecodeTopics)
		if e != nil {
			continue
		}
		for _, t := range topics {
			maxSize := math.Inf(1)
			if capBytes := wire.TopicOptionsFrom(t.Explicit, t.Derived).MaxTopicSizeBytes; capBytes != wire.Unlimited {
				maxSize = float64(capBytes)
			}
			series = append(series, topicSeries{
				labels: []string{"stream", st.Name, "stream_id", strconv.FormatUint(uint64(st.ID), 10),
					"topic", t.Name, "topic_id", strconv.FormatUint(uint64(t.ID), 10)},
				size: float64(t.SizeBytes), messages: float64(t.MessagesCount), maxSize: maxSize})
		}
	}
	p.family("topic_size_bytes", "gauge", "Bytes stored by the topic's partitions.")
	for _, t := range series {
		p.sample("topic_size_bytes", t.size, t.labels...)
	}
	p.family("topic_messages", "gauge", "Messages stored by the topic's partitions.")
	for _, t := range series {
		p.sample("topic_messages", t.messages, t.labels...)
	}
	p.family("topic_max_size_bytes", "gauge", "The topic's size cap in bytes; +Inf when unlimited.")
	for _, t := range series {
		p.sample("topic_max_size_bytes", t.maxSize, t.labels...)
	}
}
