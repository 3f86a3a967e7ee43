package main

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

// The REST API's JSON records (http.md 4), read back into the wire types the
// commands show.

// optionsOf keeps each option's text as a string value: the views print
// options as text (wire.OptionText), which the server already wrote.
func optionsOf(m map[string]rest.Option) wire.Options {
	var out wire.Options
	for k, v := range m {
		out = append(out, wire.Option{Key: k, Kind: wire.KindString, Value: []byte(v.Value)})
	}
	return out
}

// sizeOf reads a size field ("10 KiB"); a form it cannot read shows as 0.
func sizeOf(s string) uint64 {
	n, err := config.ParseSize(s)
	if err != nil {
		return 0
	}
	return n
}

// streamOf reads a stream record back into the wire type.
func streamOf(s rest.Stream) wire.StreamResponse {
	return wire.StreamResponse{ID: s.ID, CreatedAtMicros: s.CreatedAt, TopicsCount: s.TopicsCount, SizeBytes: sizeOf(s.Size),
		MessagesCount: s.MessagesCount, Name: s.Name, Options: optionsOf(s.Options)}
}

// topicOf reads a topic record back into the wire type.
func topicOf(t rest.Topic) wire.TopicHeader {
	return wire.TopicHeader{ID: t.ID, CreatedAtMicros: t.CreatedAt, PartitionsCount: t.PartitionsCount, SizeBytes: sizeOf(t.Size),
		MessagesCount: t.MessagesCount, Name: t.Name, Explicit: optionsOf(t.Options)}
}

func topicDetailsOf(t rest.TopicDetails) wire.TopicDetails {
	d := wire.TopicDetails{Topic: topicOf(t.Topic)}
	for _, p := range t.Partitions {
		d.Partitions = append(d.Partitions, wire.PartitionResponse{ID: p.ID, CreatedAtMicros: p.CreatedAt,
			SegmentsCount: p.SegmentsCount, CurrentOffset: p.CurrentOffset, SizeBytes: sizeOf(p.Size), MessagesCount: p.MessagesCount})
	}
	return d
}

// optionsBody is an options block as the REST API's string map.
func optionsBody(o wire.Options) map[string]string {
	out := map[string]string{}
	for _, e := range o {
		out[e.Key] = wire.OptionText(e)
	}
	return out
}

func (h *httpAPI) CreateStream(name string) (wire.StreamResponse, error) {
	var s rest.Stream
	_, err := h.do(http.MethodPost, "/streams", nil, map[string]any{"name": name}, &s)
	return streamOf(s), err
}

func (h *httpAPI) GetStreams() ([]wire.StreamResponse, error) {
	var ss []rest.Stream
	_, err := h.do(http.MethodGet, "/streams", nil, nil, &ss)
	out := make([]wire.StreamResponse, len(ss))
	for i, s := range ss {
		out[i] = streamOf(s)
	}
	return out, err
}

func (h *httpAPI) GetStream(stream wire.Identifier) (wire.StreamDetails, bool, error) {
	var s rest.StreamDetails
	found, err := h.do(http.MethodGet, streamPath(stream), nil, nil, &s)
	d := wire.StreamDetails{Stream: streamOf(s.Stream)}
	for _, t := range s.Topics {
		d.Topics = append(d.Topics, topicOf(t))
	}
	return d, found, err
}

func (h *httpAPI) DeleteStream(stream wire.Identifier) error {
	_, err := h.do(http.MethodDelete, streamPath(stream), nil, nil, nil)
	return err
}

// UpdateResource is the flat PUT of the scope (RES-19): option keys with
// their values, and reset naming keys to return to their defaults.
func (h *httpAPI) UpdateResource(q wire.UpdateResourceRequest) error {
	path := map[wire.OptionScope]string{wire.ScopeStream: streamPath(q.Stream), wire.ScopeTopic: topicPath(q.Stream, q.Topic),
		wire.ScopeUser: "/users/" + pathID(q.User)}[q.Scope]
	body := map[string]any{}
	for k, v := range optionsBody(q.Set) {
		body[k] = v
	}
	if len(q.Reset) > 0 {
		body["reset"] = q.Reset
	}
	_, err := h.do(http.MethodPut, path, nil, body, nil)
	return err
}

func (h *httpAPI) CreateTopic(stream wire.Identifier, name string, partitions uint32, options wire.Options) (wire.TopicDetails, error) {
	var t rest.TopicDetails
	body := map[string]any{"name": name, "partitions_count": partitions}
	if len(options) > 0 {
		body["options"] = optionsBody(options)
	}
	_, err := h.do(http.MethodPost, streamPath(stream)+"/topics", nil, body, &t)
	return topicDetailsOf(t), err
}

func (h *httpAPI) GetTopics(stream wire.Identifier) ([]wire.TopicHeader, error) {
	var ts []rest.Topic
	_, err := h.do(http.MethodGet, streamPath(stream)+"/topics", nil, nil, &ts)
	out := make([]wire.TopicHeader, len(ts))
	for i, t := range ts {
		out[i] = topicOf(t)
	}
	return out, err
}

func (h *httpAPI) GetTopic(stream, topic wire.Identifier) (wire.TopicDetails, bool, error) {
	var t rest.TopicDetails
	found, err := h.do(http.MethodGet, topicPath(stream, topic), nil, nil, &t)
	return topicDetailsOf(t), found, err
}

func (h *httpAPI) DeleteTopic(stream, topic wire.Identifier) error {
	_, err := h.do(http.MethodDelete, topicPath(stream, topic), nil, nil, nil)
	return err
}

func (h *httpAPI) CreatePartitions(stream, topic wire.Identifier, count uint32) error {
	_, err := h.do(http.MethodPost, topicPath(stream, topic)+"/partitions", nil, map[string]any{"partitions_count": count}, nil)
	return err
}

func (h *httpAPI) DeletePartitions(stream, topic wire.Identifier, count uint32) error {
	q := url.Values{"partitions_count": {strconv.FormatUint(uint64(count), 10)}}
	_, err := h.do(http.MethodDelete, topicPath(stream, topic)+"/partitions", q, nil, nil)
	return err
}

func (h *httpAPI) DeleteSegments(stream, topic wire.Identifier, partition, count uint32) error {
	q := url.Values{"segments_count": {strconv.FormatUint(uint64(count), 10)}}
	_, err := h.do(http.MethodDelete, topicPath(stream, topic)+"/partitions/"+strconv.FormatUint(uint64(partition), 10), q, nil, nil)
	return err
}
