package replicalink

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/iggygo/iggy/core/node"
)

// retryPause is how long the benchmark waits for room in the queue.
const retryPause = 50 * time.Microsecond

// BenchmarkLinkPrepare measures one link over loopback carrying prepares
// of 1 MiB bodies (a send's batch), encode to decode; a full queue is
// retried, not dropped.
func BenchmarkLinkPrepare1MiB(b *testing.B) {
	var got atomic.Int64
	nodes := cluster(b, 2, func(i int, c *Config) {
		c.Deliver = func(node.PeerMessage) { got.Add(1) }
	})
	for nodes[0].bus.Linked(1) == 0 {
		time.Sleep(retryPause)
	}
	m := bigPrepare(0, 1, 1<<20)
	b.SetBytes(1 << 20)
	b.ResetTimer()
	for range b.N {
		for !nodes[0].bus.Send(m) {
			time.Sleep(retryPause)
		}
	}
	for got.Load() < int64(b.N) {
		time.Sleep(retryPause)
	}
}
