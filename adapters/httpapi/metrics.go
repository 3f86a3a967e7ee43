package httpapi

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// latencyBucketsSeconds are the upper bounds of every latency histogram.
var latencyBucketsSeconds = [...]float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// seriesMax bounds the label sets one family may hold; routes, statuses
// and commands are finite, so it is never reached unless something is wrong,
// and then new sets are counted as dropped rather than grown without end.
const seriesMax = 4096

type histogram struct {
	buckets [len(latencyBucketsSeconds)]uint64 // not cumulative; summed when rendered
	count   uint64
	sum     float64
}

func (h *histogram) observe(d time.Duration) {
	sec := d.Seconds()
	for i, le := range latencyBucketsSeconds {
		if sec <= le {
			h.buckets[i]++
			break
		}
	}
	h.count++
	h.sum += sec
}

type requestKey struct {
	route  string // "GET /streams/{stream_id}" or "unmatched"
	status int
}

type commandKey struct {
	command string
	ok      bool
}

// metrics are the adapter's own counters: requests by route and status,
// node commands by name and outcome, and their latencies.
type metrics struct {
	mu             sync.Mutex
	requests       map[requestKey]uint64
	routeLatency   map[string]*histogram
	commands       map[commandKey]uint64
	commandLatency map[string]*histogram
	dropped        uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[requestKey]uint64{}, routeLatency: map[string]*histogram{},
		commands: map[commandKey]uint64{}, commandLatency: map[string]*histogram{}}
}

func (m *metrics) observeRoute(route string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if countSeries(m.requests, requestKey{route, status}, &m.dropped) {
		histogramFor(m.routeLatency, route, &m.dropped).observe(d)
	}
}

func (m *metrics) observeCommand(command string, ok bool, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if countSeries(m.commands, commandKey{command, ok}, &m.dropped) {
		histogramFor(m.commandLatency, command, &m.dropped).observe(d)
	}
}

// countSeries adds one to k's counter; false, counting a drop, when k is
// new and the family already holds seriesMax label sets.
func countSeries[K comparable](counts map[K]uint64, k K, dropped *uint64) bool {
	if _, seen := counts[k]; !seen && len(counts) >= seriesMax {
		*dropped++
		return false
	}
	counts[k]++
	return true
}

// histogramFor returns key's histogram, or a throwaway one past the bound.
func histogramFor(hs map[string]*histogram, key string, dropped *uint64) *histogram {
	h, ok := hs[key]
	if ok {
		return h
	}
	h = &histogram{}
	if len(hs) >= seriesMax {
		*dropped++
		return h
	}
	hs[key] = h
	return h
}

// render writes the adapter's families in the Prometheus text format.
func (m *metrics) render(p *promWriter) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p.family("http_requests_total", "counter", "HTTP requests answered, by route and status.")
	reqs := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		reqs = append(reqs, k)
	}
	sort.Slice(reqs, func(i, j int) bool {
		return reqs[i].route < reqs[j].route || (reqs[i].route == reqs[j].route && reqs[i].status < reqs[j].status)
	})
	for _, k := range reqs {
		method, path := splitRoute(k.route)
		p.sample("http_requests_total", float64(m.requests[k]), "method", method, "route", path, "status", strconv.Itoa(k.status))
	}
	p.family("http_request_duration_seconds", "histogram", "HTTP request latency, by route.")
	for _, route := range sortedKeys(m.routeLatency) {
		method, path := splitRoute(route)
		p.histogram("http_request_duration_seconds", m.routeLatency[route], "method", method, "route", path)
	}
	p.family("node_requests_total", "counter", "Requests sent to the node, by command and outcome.")
	cmds := make([]commandKey, 0, len(m.commands))
	for k := range m.commands {
		cmds = append(cmds, k)
	}
	sort.Slice(cmds, func(i, j int) bool {
		return cmds[i].command < cmds[j].command || (cmds[i].command == cmds[j].command && !cmds[i].ok && cmds[j].ok)
	})
	for _, k := range cmds {
		result := "error"
		if k.ok {
			result = "ok"
		}
		p.sample("node_requests_total", float64(m.commands[k]), "command", k.command, "result", result)
	}
	p.family("node_request_duration_seconds", "histogram", "Node round-trip latency, by command.")
	for _, cmd := range sortedKeys(m.commandLatency) {
		p.histogram("node_request_duration_seconds", m.commandLatency[cmd], "command", cmd)
	}
	p.family("metrics_series_dropped_total", "counter", "Observations dropped because a family reached its series bound.")
	p.sample("metrics_series_dropped_total", float64(m.dropped))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// splitRoute splits "GET /streams" into its method and path.
func splitRoute(route string) (string, string) {
	method, path, ok := strings.Cut(route, " ")
	if !ok {
		return "", route
	}
	return method, path
}

// promWriter writes the Prometheus text exposition format (version 0.0.4).
type promWriter struct{ b strings.Builder }

func (p *promWriter) family(name, typ, help string) {
	p.b.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
}

// sample writes one line; labels are name/value pairs.
func (p *promWriter) sample(name string, v float64, labels ...string) {
	p.b.WriteString(name)
	if len(labels) > 0 {
		p.b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				p.b.WriteByte(',')
			}
			p.b.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
		}
		p.b.WriteByte('}')
	}
	p.b.WriteString(" " + formatValue(v) + "\n")
}

func (p *promWriter) histogram(name string, h *histogram, labels ...string) {
	var cum uint64
	for i, le := range latencyBucketsSeconds {
		cum += h.buckets[i]
		p.sample(name+"_bucket", float64(cum), append(labels, "le", formatValue(le))...)
	}
	p.sample(name+"_bucket", float64(h.count), append(labels, "le", "+Inf")...)
	p.sample(name+"_sum", h.sum, labels...)
	p.sample(name+"_count", float64(h.count), labels...)
}

// escapeLabel escapes a label value: backslash, double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
