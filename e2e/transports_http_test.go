package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// The HTTP leg of TestSameScenarioOverEveryTransport: the same requests
// through the REST API (http.md), with every answer brought to the form of
// scenarioResult - ids as 16 little-endian bytes, payloads and header
// values decoded from base64, headers re-encoded as the TLV block in the
// order the server returned them, error ids as wire codes.

const (
	transportHTTP = "http"
	// httpMessageIDBits bounds a polled id: a u128.
	httpMessageIDBits = 128
)

// httpKindNames are the header kinds the workload uses, by their http.md
// 5.3 names.
var httpKindNames = map[wire.ValueKind]string{wire.KindString: "string", wire.KindUint64: "uint64"}

// httpHeaderField is a header key or value; []byte travels as base64.
type httpHeaderField struct {
	Kind  string `json:"kind"`
	Value []byte `json:"value"`
}

type httpHeader struct {
	Key   httpHeaderField `json:"key"`
	Value httpHeaderField `json:"value"`
}

// httpSendMessage is one message of a send body (http.md 5.1). The body has
// no origin timestamp: the server stamps the arrival time.
type httpSendMessage struct {
	ID          string       `json:"id"` // decimal u128
	Payload     []byte       `json:"payload"`
	UserHeaders []httpHeader `json:"user_headers"`
}

type httpPartitioning struct {
	Kind  string `json:"kind"`
	Value []byte `json:"value"`
}

type httpSendBody struct {
	Partitioning httpPartitioning  `json:"partitioning"`
	Messages     []httpSendMessage `json:"messages"`
}

// httpPolled is the PolledMessages answer (http.md 5.2).
type httpPolled struct {
	PartitionID   uint32 `json:"partition_id"`
	CurrentOffset uint64 `json:"current_offset"`
	Count         int    `json:"count"`
	Messages      []struct {
		Header struct {
			ID              json.Number `json:"id"`
			Offset          uint64      `json:"offset"`
			OriginTimestamp uint64      `json:"origin_timestamp"`
		} `json:"header"`
		Payload     []byte       `json:"payload"`
		UserHeaders []httpHeader `json:"user_headers"`
	} `json:"messages"`
}

func runHTTPScenario(t *testing.T, h *httpServer) scenarioResult {
	var res scenarioResult
	tok := h.rootToken(t)
	var st, tp struct {
		ID uint32 `json:"id"`
	}
	h.do(t, "POST", "/streams", tok, obj{"name": "transport-" + transportHTTP}).ok(t, http.StatusOK, "create stream").json(t, &st)
	streamPath := fmt.Sprintf("/streams/%d", st.ID)
	h.do(t, "POST", streamPath+"/topics", tok, obj{"name": "events", "partitions_count": 1}).
		ok(t, http.StatusOK, "create topic").json(t, &tp)
	topicPath := fmt.Sprintf("%s/topics/%d", streamPath, tp.ID)
	var topic struct {
		PartitionsCount uint32 `json:"partitions_count"`
	}
	h.do(t, "GET", topicPath, tok, nil).ok(t, http.StatusOK, "get topic").json(t, &topic)
	res.partitions = topic.PartitionsCount
	checkHTTPSession(t, h, tok)

	start := time.Now()
	sent := sendHTTPMessages(t, h, tok, topicPath, &res)
	got := pollAllHTTP(t, h, tok, topicPath)
	logTransportRate(t, transportHTTP, time.Since(start))
	recordPolled(t, got, sent, &res)

	offsets := topicPath + "/consumer-offsets"
	h.do(t, "PUT", offsets, tok, obj{"consumer_id": 7, "partition_id": 0, "offset": transportStoredAt}).
		ok(t, http.StatusNoContent, "store offset")
	var off struct {
		PartitionID   uint32 `json:"partition_id"`
		CurrentOffset uint64 `json:"current_offset"`
		StoredOffset  uint64 `json:"stored_offset"`
	}
	h.do(t, "GET", offsets+"?consumer_id=7&partition_id=0", tok, nil).ok(t, http.StatusOK, "get offset").json(t, &off)
	res.offset = wire.ConsumerOffsetInfo(off)

	res.deniedCreate, res.deniedStats = deniedCodesHTTP(t, h, tok)
	res.badInput = httpRefusal(t, h.do(t, "POST", streamPath+"/topics", tok,
		obj{"name": "too-many", "partitions_count": transportTooManyPartitions}), http.StatusBadRequest, "too many partitions")
	h.do(t, "GET", topicPath, tok, nil).ok(t, http.StatusOK, "session unusable after the refusals")
	return res
}

// checkHTTPSession fails unless the server lists root's HTTP session with
// the HTTP transport tag (the REST analog of the binary legs' GetMe).
func checkHTTPSession(t *testing.T, h *httpServer, tok string) {
	t.Helper()
	var clients []struct {
		UserID    *uint32 `json:"user_id"`
		Transport string  `json:"transport"`
	}
	h.do(t, "GET", "/clients", tok, nil).ok(t, http.StatusOK, "list clients").json(t, &clients)
	for _, c := range clients {
		if c.Transport == transportHTTP && c.UserID != nil && *c.UserID == 0 {
			return
		}
	}
	t.Fatalf("no HTTP session of root among the clients: %+v", clients)
}

// sendHTTPMessages sends the workload in the binary legs' batches and
// records the base offsets. The sent messages keep no origin timestamp:
// HTTP cannot carry one.
func sendHTTPMessages(t *testing.T, h *httpServer, tok, topicPath string, res *scenarioResult) []sentMessage {
	t.Helper()
	part0 := httpPartitioning{Kind: "partition_id", Value: []byte{0, 0, 0, 0}}
	var sent []sentMessage
	for b := range transportBatches {
		msgs := transportBatch(b)
		body := httpSendBody{Partitioning: part0, Messages: make([]httpSendMessage, len(msgs))}
		for i, m := range msgs {
			body.Messages[i] = httpMessage(t, m)
		}
		var conf struct {
			Confirmations []struct {
				PartitionID uint32 `json:"partition_id"`
				BaseOffset  uint64 `json:"base_offset"`
			} `json:"confirmations"`
		}
		h.do(t, "POST", topicPath+"/messages", tok, body).ok(t, http.StatusCreated, fmt.Sprintf("send batch %d", b)).json(t, &conf)
		if len(conf.Confirmations) != 1 || conf.Confirmations[0].PartitionID != 0 {
			t.Fatalf("send batch %d: confirmations %+v", b, conf.Confirmations)
		}
		base := conf.Confirmations[0].BaseOffset
		res.baseOffsets = append(res.baseOffsets, base)
		for i, m := range msgs {
			m.OriginTimestamp = 0
			sent = append(sent, sentMessage{offset: base + uint64(i), msg: m})
		}
	}
	return sent
}

// httpMessage is m in a send body: its id as a decimal u128, its headers
// in key order as the binary client encodes them.
func httpMessage(t *testing.T, m client.Message) httpSendMessage {
	t.Helper()
	var be [16]byte
	for i := range m.ID {
		be[i] = m.ID[15-i]
	}
	out := httpSendMessage{ID: new(big.Int).SetBytes(be[:]).String(), Payload: m.Payload,
		UserHeaders: make([]httpHeader, 0, len(m.Headers))}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		v := m.Headers[k]
		name, ok := httpKindNames[v.Kind]
		if !ok {
			t.Fatalf("header %q: kind %d has no HTTP name in this test", k, v.Kind)
		}
		out.UserHeaders = append(out.UserHeaders, httpHeader{Key: httpHeaderField{Kind: "string", Value: []byte(k)},
			Value: httpHeaderField{Kind: name, Value: v.Value}})
	}
	return out
}

// pollAllHTTP reads partition 0 from offset 0 to its end in the binary
// legs' chunks (consumer 1, no auto-commit), as received messages.
func pollAllHTTP(t *testing.T, h *httpServer, tok, topicPath string) []client.ReceivedMessage {
	t.Helper()
	var out []client.ReceivedMessage
	for {
		path := fmt.Sprintf("%s/messages?consumer_id=1&partition_id=0&kind=offset&value=%d&count=%d", topicPath, len(out), pollChunk)
		var p httpPolled
		h.do(t, "GET", path, tok, nil).ok(t, http.StatusOK, "poll").json(t, &p)
		if p.Count != len(p.Messages) {
			t.Fatalf("poll from %d: count %d with %d messages", len(out), p.Count, len(p.Messages))
		}
		if len(p.Messages) == 0 {
			return out
		}
		for _, m := range p.Messages {
			out = append(out, client.ReceivedMessage{Partition: p.PartitionID, Offset: m.Header.Offset,
				ID: httpMessageID(t, m.Header.ID), Payload: m.Payload, Headers: httpHeaderBlock(t, m.UserHeaders),
				OriginTimestamp: m.Header.OriginTimestamp})
		}
	}
}

// httpMessageID is a polled decimal u128 id as 16 little-endian bytes.
func httpMessageID(t *testing.T, n json.Number) [16]byte {
	t.Helper()
	v, ok := new(big.Int).SetString(n.String(), 10)
	if !ok || v.Sign() < 0 || v.BitLen() > httpMessageIDBits {
		t.Fatalf("polled id %q is not a u128", n)
	}
	var be, le [16]byte
	v.FillBytes(be[:])
	for i := range be {
		le[i] = be[15-i]
	}
	return le
}

// httpHeaderBlock re-encodes polled headers as the TLV block, in the order
// the server listed them; none is an empty block, as over the binary wire.
func httpHeaderBlock(t *testing.T, headers []httpHeader) []byte {
	t.Helper()
	if len(headers) == 0 {
		return nil
	}
	entries := make(wire.Options, 0, len(headers))
	for _, hd := range headers {
		kind, ok := httpKindByName(hd.Value.Kind)
		if hd.Key.Kind != "string" || !ok {
			t.Fatalf("polled header %+v: unexpected kinds", hd)
		}
		entries = append(entries, wire.Option{Key: string(hd.Key.Value), Kind: kind, Value: hd.Value.Value})
	}
	var w wire.Writer
	w.OptionsInOrder(entries)
	return w.Buf
}

func httpKindByName(name string) (wire.ValueKind, bool) {
	for k, n := range httpKindNames {
		if n == name {
			return k, true
		}
	}
	return 0, false
}

// deniedCodesHTTP creates a user without permissions, logs it in over HTTP
// and returns the Iggy ids of two refused requests (41 expected, as 403).
func deniedCodesHTTP(t *testing.T, h *httpServer, rootTok string) (wire.Code, wire.Code) {
	t.Helper()
	name := "user-" + transportHTTP
	h.do(t, "POST", "/users", rootTok, obj{"username": name, "password": name + "-pass", "status": "active", "permissions": nil}).
		ok(t, http.StatusOK, "create user")
	tok := h.httpLogin(t, name, name+"-pass").AccessToken.Token
	create := httpRefusal(t, h.do(t, "POST", "/streams", tok, obj{"name": "denied-" + transportHTTP}), http.StatusForbidden, "denied create")
	stats := httpRefusal(t, h.do(t, "GET", "/stats", tok, nil), http.StatusForbidden, "denied stats")
	return create, stats
}

// httpRefusal checks an error answer's status and returns the Iggy error id
// of its JSON body (http.md 2.1) as a wire code.
func httpRefusal(t *testing.T, r reply, status int, what string) wire.Code {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body %s", what, r.status, status, r.body)
	}
	var e httpErr
	r.json(t, &e)
	if e.Code == "" || e.Reason == "" {
		t.Fatalf("%s: error body %s lacks code or reason", what, r.body)
	}
	return wire.Code(e.ID)
}
