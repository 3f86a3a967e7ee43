package httpapi

import (
	"net/http/httptest"
	"testing"
)

// covers IDEM-2
// Producer ids are the binary protocol's only (NextProducerId, code 110):
// the route table serves no path that issues one or takes a producer's
// batch, under the root or a topic, with any method.
func TestNoProducerRoutes(t *testing.T) {
	m := (&Server{}).routes()
	const topic = "/streams/1/topics/1"
	var paths []string
	for _, base := range []string{"", topic, topic + "/messages"} {
		for _, leaf := range []string{"/producers", "/producer", "/producer-id", "/producer_id", "/next-producer-id", "/producers/messages"} {
			paths = append(paths, base+leaf)
		}
	}
	for _, method := range []string{"GET", "POST", "PUT"} {
		for _, path := range paths {
			if _, pattern := m.Handler(httptest.NewRequest(method, path, nil)); pattern != "" {
				t.Errorf("%s %s is served by route %q", method, path, pattern)
			}
		}
	}
	if _, pattern := m.Handler(httptest.NewRequest("POST", topic+"/messages", nil)); pattern == "" {
		t.Fatal("the probe finds no route at all: it proves nothing")
	}
}
