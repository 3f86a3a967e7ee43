package promtext

import (
	"math"
	"strings"
	"testing"
)

const good = `# HELP http_requests_total Requests.
# TYPE http_requests_total counter
http_requests_total{method="GET",route="/a\"b\\c\n"} 3
http_requests_total{method="PUT",route="/a"} 1 1700000000000
# TYPE lat histogram
lat_bucket{route="/a",le="0.1"} 1
lat_bucket{route="/a",le="1"} 2
lat_bucket{route="/a",le="+Inf"} 2
lat_sum{route="/a"} 0.6
lat_count{route="/a"} 2
# TYPE cap gauge
cap{topic="t"} +Inf
`

func TestParseAcceptsAWellFormedExposition(t *testing.T) {
	fams, err := Parse(good)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if len(fams) != 3 {
		t.Fatalf("%d families, want 3", len(fams))
	}
	req, _ := Find(fams, "http_requests_total")
	if req.Help != "Requests." || len(req.Samples) != 2 || req.Samples[0].Labels["route"] != "/a\"b\\c\n" {
		t.Fatalf("counter family: %+v", req)
	}
	c, _ := Find(fams, "cap")
	if !math.IsInf(c.Samples[0].Value, 1) {
		t.Fatalf("cap = %v, want +Inf", c.Samples[0].Value)
	}
}

func TestParseRefusesMalformedExpositions(t *testing.T) {
	cases := map[string]string{
		"no final newline":    "# TYPE a gauge\na 1",
		"sample before TYPE":  "a 1\n",
		"split family":        "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x=\"1\"} 2\n",
		"duplicate series":    "# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n",
		"bad escape":          "# TYPE a gauge\na{x=\"\\t\"} 1\n",
		"unquoted label":      "# TYPE a gauge\na{x=1} 1\n",
		"bad value":           "# TYPE a gauge\na 0x10\n",
		"negative counter":    "# TYPE a counter\na -1\n",
		"second TYPE":         "# TYPE a gauge\n# TYPE a gauge\n",
		"unknown type":        "# TYPE a thing\n",
		"bad metric name":     "# TYPE 1a gauge\n",
		"reserved label":      "# TYPE a gauge\na{__x=\"1\"} 1\n",
		"buckets decrease":    "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
		"count disagrees":     "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n",
		"histogram no sum":    "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n",
		"trailing garbage":    "# TYPE a gauge\na 1 2 3\n",
		"label twice":         "# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n",
		"unterminated labels": "# TYPE a gauge\na{x=\"1\" 1\n",
	}
	for name, text := range cases {
		if _, err := Parse(text); err == nil {
			t.Errorf("%s: parsed %q", name, text)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add(strings.Repeat("# TYPE a gauge\n", 2))
	f.Fuzz(func(t *testing.T, text string) {
		_, _ = Parse(text) // must never panic
	})
}
