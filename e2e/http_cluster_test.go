package e2e

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/httpapi"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the HTTP replica-set test.
const (
	relayPartitions = 3
	relayProofLife  = 10 * time.Second
)

// startHTTPCluster starts n nodes from one roster with HTTP enabled on
// free ports and one JWT secret, so every node accepts every node's
// bearers and holds the same relay key. It returns the nodes' HTTP ends.
func startHTTPCluster(t *testing.T, n int) (*testCluster, []*httpServer) {
	t.Helper()
	dir := t.TempDir()
	tc := &testCluster{t: t}
	var roster strings.Builder
	roster.WriteString("[cluster]\nenabled = true\nname = \"e2e-http-cluster\"\n")
	httpAddrs := make([]string, n)
	for i := range n {
		tc.addrs = append(tc.addrs, freeAddr(t))
		httpAddrs[i] = freeAddr(t)
		fmt.Fprintf(&roster, "\n[[cluster.nodes]]\nname = \"node-%d\"\nip = \"127.0.0.1\"\nreplica_id = %d\n"+
			"ports = { tcp = %s, http = %s, tcp_replica = %s }\n",
			i, i, portOf(t, tc.addrs[i]), portOf(t, httpAddrs[i]), portOf(t, freeAddr(t)))
	}
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(roster.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IGGY_CONFIG_PATH": path, "IGGY_HTTP_ENABLED": "true",
		"IGGY_HTTP_JWT_ENCODING_SECRET": httpSecret}
	for i := range n {
		cfg := serverConfig{dataDir: filepath.Join(dir, fmt.Sprintf("node-%d", i), "data"), defaultRoot: true,
			args: []string{"--replica-id", strconv.Itoa(i)}, env: env}
		if err := os.MkdirAll(filepath.Dir(cfg.dataDir), 0o700); err != nil {
			t.Fatal(err)
		}
		tc.nodes = append(tc.nodes, launch(t, cfg, tc.addrs[i]))
	}
	hs := make([]*httpServer, n)
	for i, s := range tc.nodes {
		s.waitReady()
		hs[i] = &httpServer{server: s, base: "http://" + httpAddrs[i], client: &http.Client{Timeout: httpRequestTimeout}}
		hs[i].waitHTTP(t)
	}
	return tc, hs
}

// An HTTP client that knows one node, a backup of the metadata group,
// creates a stream and a topic through it (forwarded to the metadata
// primary), then sends, polls, stores and reads offsets on every partition
// through it: the node serves the partition it leads and relays the others
// to their primaries' HTTP ports, where the caller's bearer is checked
// again. Relays the test makes itself show the target's side: a proof
// made with the shared key is served; a tampered, expired, misdirected,
// foreign-key, missing or noncanonical one is refused with 403 before the
// bearer is looked at, and a valid proof does not stand in for a bearer.
// covers RELAY-1, RELAY-2, RELAY-4, RELAY-5, RELAY-6, RELAY-7, RELAY-8, RELAY-9, RELAY-10, RELAY-11
func TestHTTPClusterServesEveryPartitionThroughOneNode(t *testing.T) {
	tc, hs := startHTTPCluster(t, 3)
	leader := tc.metadataLeader()
	entry := hs[(leader+1)%len(hs)] // a backup: control-plane writes are forwarded
	var tok string
	tc.eventually("login over HTTP", func() error {
		r := tryDo(entry, "POST", "/users/login", "", nil, `{"username":"iggy","password":"iggy"}`)
		var id identity
		if r.status != http.StatusOK || json.Unmarshal(r.body, &id) != nil {
			return fmt.Errorf("login: %d %s", r.status, r.body)
		}
		tok = id.AccessToken.Token
		return nil
	})
	entry.do(t, "POST", "/streams", tok, obj{"name": "relay"}).ok(t, http.StatusOK, "create stream via a backup")
	entry.do(t, "POST", "/streams/relay/topics", tok, obj{"name": "t", "partitions_count": relayPartitions}).
		ok(t, http.StatusOK, "create topic via a backup")

	routes := relayRoutes(t, tc, "t", relayPartitions)
	relayed := 0
	for _, rt := range routes {
		if int(rt.Primary) != (leader+1)%len(hs) {
			relayed++
		}
		sendAndReadThrough(t, entry, tok, rt.PartitionID)
	}
	if relayed == 0 {
		t.Fatalf("routes %+v: every partition led by the entry node, nothing was relayed", routes)
	}
	balanced := `{"partitioning":{"kind":"balanced","value":""},"messages":[{"payload":"YmFs"}]}`
	for range relayPartitions {
		entry.do(t, "POST", "/streams/relay/topics/t/messages", tok, balanced).ok(t, http.StatusCreated, "balanced send")
	}

	deleteSegmentsThrough(t, tc, entry, (leader+1)%len(hs), tok)

	// The test relays to a partition's primary itself, with the key every node derives.
	rt := routes[0]
	target := hs[rt.Primary]
	key := httpapi.RelayKey(httpSecret, "", "")
	uri := fmt.Sprintf("/streams/relay/topics/t/messages?partition_id=%d&kind=first&count=10", rt.PartitionID)
	route := fmt.Sprintf("%d/%d", rt.Primary, rt.PartitionID)
	fresh := strconv.FormatInt(time.Now().Add(relayProofLife).UnixMilli(), 10)
	good := relayHeaders(key, "GET", uri, route, fresh)
	tryDo(target, "GET", uri, tok, good, "").ok(t, http.StatusOK, "a relay with a valid proof")
	tryDo(target, "GET", uri, "", good, "").fails(t, http.StatusUnauthorized, uint32(wire.AccessTokenMissing), "",
		"a valid proof without a bearer")

	refused := map[string]map[string]string{
		"tampered tag":     with(good, "iggy-relay-proof", flipHex(good["iggy-relay-proof"])),
		"another query":    relayHeaders(key, "GET", uri+"&x=1", route, fresh),
		"another method":   relayHeaders(key, "DELETE", uri, route, fresh),
		"foreign key":      relayHeaders(httpapi.RelayKey("another-secret", "", ""), "GET", uri, route, fresh),
		"another target":   relayHeaders(key, "GET", uri, fmt.Sprintf("%d/%d", (int(rt.Primary)+1)%3, rt.PartitionID), fresh),
		"expired":          relayHeaders(key, "GET", uri, route, strconv.FormatInt(time.Now().Add(-time.Second).UnixMilli(), 10)),
		"far future":       relayHeaders(key, "GET", uri, route, strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)),
		"no proof":         without(good, "iggy-relay-proof"),
		"no route":         without(good, "iggy-relay-route"),
		"only forwarded":   {"iggy-forwarded": "1"},
		"forwarded 01":     with(good, "iggy-forwarded", "01"),
		"expiry leading 0": relayHeaders(key, "GET", uri, route, "0"+fresh),
		"expiry signed":    relayHeaders(key, "GET", uri, route, "+"+fresh),
		"expiry hex":       relayHeaders(key, "GET", uri, route, "0x"+strconv.FormatInt(time.Now().Add(relayProofLife).UnixMilli(), 16)),
		"route leading 0":  relayHeaders(key, "GET", uri, fmt.Sprintf("0%d/%d", rt.Primary, rt.PartitionID), fresh),
		"partition 00":     relayHeaders(key, "GET", uri, fmt.Sprintf("%d/0%d", rt.Primary, rt.PartitionID), fresh),
		"route no slash":   relayHeaders(key, "GET", uri, fmt.Sprintf("%d", rt.Primary), fresh),
		"uppercase tag":    with(good, "iggy-relay-proof", strings.ToUpper(good["iggy-relay-proof"])),
		"short tag":        with(good, "iggy-relay-proof", good["iggy-relay-proof"][:62]),
		"base64 tag":       with(good, "iggy-relay-proof", base64.StdEncoding.EncodeToString(mustHex(good["iggy-relay-proof"]))),
	}
	for name, h := range refused {
		r := tryDo(target, "GET", uri, tok, h, "")
		r.fails(t, http.StatusForbidden, http.StatusForbidden, "", "relay with "+name)
		if name == "expired" && !bytes.Contains(r.body, []byte("relay_proof_expired")) {
			t.Fatalf("expired proof answered %s", r.body)
		}
	}
}

// relayRoutes are the topic's partition routes once every partition has
// a primary, as node 0 reports them.
func relayRoutes(t *testing.T, tc *testCluster, topic string, partitions int) []wire.PartitionRoute {
	t.Helper()
	var routes []wire.PartitionRoute
	c := tc.node(0)
	tc.eventually("partition routes", func() error {
		var err error
		routes, err = c.PartitionRoutes(wire.NamedID("relay"), wire.NamedID(topic))
		if err == nil && len(routes) != partitions {
			err = fmt.Errorf("%d routes", len(routes))
		}
		return err
	})
	return routes
}

// deleteSegmentsThrough deletes segments of every partition of a topic at
// factor 1 through the node entry (replica self): the partitions it does
// not hold are relayed to their primaries, which resolve the count.
// covers RELAY-2, RES-44
func deleteSegmentsThrough(t *testing.T, tc *testCluster, entry *httpServer, self int, tok string) {
	t.Helper()
	entry.do(t, "POST", "/streams/relay/topics", tok, obj{"name": "one", "partitions_count": 3,
		"options": obj{"replication_factor": 1}}).ok(t, http.StatusOK, "create a topic at factor 1")
	foreign := 0
	for _, rt := range relayRoutes(t, tc, "one", 3) {
		if int(rt.Primary) != self {
			foreign++
		}
		uri := fmt.Sprintf("/streams/relay/topics/one/partitions/%d?segments_count=1", rt.PartitionID)
		entry.do(t, "DELETE", uri, tok, nil).ok(t, http.StatusNoContent, "delete segments through one node")
	}
	if foreign == 0 {
		t.Fatal("the entry node holds every partition of a factor-1 topic: nothing was relayed")
	}
}

// sendAndReadThrough sends two messages to partition p through h, polls
// them back (a poll and a deferred poll), stores an offset and reads it back.
func sendAndReadThrough(t *testing.T, h *httpServer, tok string, p uint32) {
	t.Helper()
	var le [4]byte
	binary.LittleEndian.PutUint32(le[:], p)
	want := []string{fmt.Sprintf("p%d-a", p), fmt.Sprintf("p%d-b", p)}
	body := obj{"partitioning": obj{"kind": "partition_id", "value": base64.StdEncoding.EncodeToString(le[:])},
		"messages": []obj{{"payload": base64.StdEncoding.EncodeToString([]byte(want[0]))},
			{"payload": base64.StdEncoding.EncodeToString([]byte(want[1]))}}}
	var sent struct {
		Confirmations []struct {
			PartitionID uint32 `json:"partition_id"`
		} `json:"confirmations"`
	}
	h.do(t, "POST", "/streams/relay/topics/t/messages", tok, body).ok(t, http.StatusCreated, "send").json(t, &sent)
	if len(sent.Confirmations) != 1 || sent.Confirmations[0].PartitionID != p {
		t.Fatalf("partition %d: confirmations %+v", p, sent)
	}
	var polled struct {
		PartitionID uint32 `json:"partition_id"`
		Messages    []struct {
			Payload string `json:"payload"`
		} `json:"messages"`
	}
	h.do(t, "GET", fmt.Sprintf("/streams/relay/topics/t/messages?partition_id=%d&kind=first&count=10", p), tok, nil).
		ok(t, http.StatusOK, "poll").json(t, &polled)
	if polled.PartitionID != p || len(polled.Messages) != len(want) {
		t.Fatalf("partition %d: polled %+v", p, polled)
	}
	for i, m := range polled.Messages {
		if b, _ := base64.StdEncoding.DecodeString(m.Payload); string(b) != want[i] {
			t.Fatalf("partition %d message %d: %q, want %q", p, i, b, want[i])
		}
	}
	var deferred struct {
		Count int `json:"count"`
	}
	h.do(t, "GET", fmt.Sprintf("/streams/relay/topics/t/messages/deferred?partition_id=%d&kind=first&count=10&max_wait=0s", p), tok, nil).
		ok(t, http.StatusOK, "deferred poll").json(t, &deferred)
	if deferred.Count != len(want) {
		t.Fatalf("partition %d: deferred poll counted %d", p, deferred.Count)
	}
	h.do(t, "PUT", "/streams/relay/topics/t/consumer-offsets", tok, obj{"consumer_id": 1, "partition_id": p, "offset": 1}).
		ok(t, http.StatusNoContent, "store offset")
	var off struct {
		PartitionID  uint32 `json:"partition_id"`
		StoredOffset uint64 `json:"stored_offset"`
	}
	h.do(t, "GET", fmt.Sprintf("/streams/relay/topics/t/consumer-offsets?partition_id=%d", p), tok, nil).
		ok(t, http.StatusOK, "read offset").json(t, &off)
	if off.PartitionID != p || off.StoredOffset != 1 {
		t.Fatalf("partition %d: offset %+v", p, off)
	}
}

// relayHeaders are the relay headers of a proof under key, made as the
// documented layout says (DESIGN.md "HTTP relays"): an HMAC-SHA256 over
// the context line, method, path and query, route and expiry, one per line.
func relayHeaders(key []byte, method, uri, route, expiry string) map[string]string {
	mac := hmac.New(sha256.New, key)
	for _, f := range []string{"iggy-go http relay proof v1", method, uri, route, canonicalOrRaw(expiry)} {
		mac.Write([]byte(f + "\n"))
	}
	return map[string]string{"iggy-forwarded": "1", "iggy-relay-route": route, "iggy-relay-expiry": expiry,
		"iggy-relay-proof": hex.EncodeToString(mac.Sum(nil))}
}

// canonicalOrRaw is the number a lenient parser would read from s, so a
// noncanonical field is signed as if the target normalized it: only the
// form check can refuse it.
func canonicalOrRaw(s string) string {
	if v, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(s, "+")), 10, 64); err == nil {
		return strconv.FormatUint(v, 10)
	}
	return s
}

func with(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for kk, vv := range h {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}

func without(h map[string]string, k string) map[string]string {
	out := map[string]string{}
	for kk, vv := range h {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}

// flipHex changes the first digit of a hexadecimal tag.
func flipHex(s string) string {
	if s[0] == '0' {
		return "1" + s[1:]
	}
	return "0" + s[1:]
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// tryDo sends a request with extra headers; a transport failure is status 0.
func tryDo(h *httpServer, method, path, token string, headers map[string]string, body string) reply {
	req, err := http.NewRequest(method, h.base+path, strings.NewReader(body))
	if err != nil {
		return reply{}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return reply{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}
