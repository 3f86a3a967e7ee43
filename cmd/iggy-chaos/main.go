// Command iggy-chaos runs a replica set of real iggy-server processes on
// loopback under load and kills them: producers and consumers run through
// the project's routing client while a random node is killed with kill -9
// every 2 to 5 s and restarted from its disk. At the end it checks that
// every acknowledged message is at its acknowledged offset, that no
// consumer offset the set acknowledged went back, and that every node
// holds byte-identical partition files; it prints one summary line and
// exits 1 on any loss.
//
//	go build -o bin/ ./cmd/... && bin/iggy-chaos -bin bin/iggy-server -duration 60s
//	bin/iggy-chaos -bin bin/iggy-server -nodes 5 -duration 10m
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// Pacing of the kills.
const (
	killGapMin   = 2 * time.Second // between one restart and the next kill
	killGapMax   = 5 * time.Second
	downtimeMax  = 2 * time.Second // a killed node stays down up to this
	healPause    = 3 * time.Second // after the last restart, before verification
	nodesMin     = 3
	nodesMax     = 32
	exitLoss     = 1
	exitFailed   = 2
	partitionsDf = 2
)

type options struct {
	bin        string
	nodes      int
	duration   time.Duration
	dir        string
	partitions uint
	seed       uint64
	keep       bool
	rf         uint
	outage     time.Duration
	workers    uint
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin/iggy-server", "the iggy-server binary")
	flag.IntVar(&o.nodes, "nodes", 3, "replicas in the set (3 or 5)")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long producers run and nodes are killed")
	flag.StringVar(&o.dir, "dir", "", "work directory (default: a new temporary one, removed unless -keep)")
	flag.UintVar(&o.partitions, "partitions", partitionsDf, "partitions of the topic (one producer and one consumer each)")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "seed of the kill schedule")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (data and logs)")
	flag.UintVar(&o.rf, "rf", 0, "the topic's replication_factor (0: the default, every node)")
	flag.DurationVar(&o.outage, "outage", 0, "outage mode: stop the last node this long once, instead of random kills (outage.go)")
	flag.UintVar(&o.workers, "workers", 0, "producers and consumers, each over its share of the partitions (0: one each per partition)")
	flag.Parse()
	os.Exit(run(o))
}

func run(o options) int {
	if o.nodes < nodesMin || o.nodes > nodesMax || o.partitions < 1 || o.rf > uint(o.nodes) {
		fmt.Fprintf(os.Stderr, "iggy-chaos: -nodes %d (want %d..%d), -partitions %d (want at least 1)\n", o.nodes, nodesMin, nodesMax, o.partitions)
		return exitFailed
	}
	dir, cleanup, err := workDir(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "iggy-chaos:", err)
		return exitFailed
	}
	defer cleanup()
	r, err := chaos(o, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "iggy-chaos: %v (work directory %s)\n", err, dir)
		return exitFailed
	}
	fmt.Println(r.summary(o))
	if o.outage > 0 {
		fmt.Println(r.outage)
	}
	if r.v.lost > 0 || r.offsetBackward > 0 || !r.identical || o.outage > 0 && !r.outage.even {
		fmt.Fprintf(os.Stderr, "iggy-chaos: first loss %s; %s; seed %d\n", r.v.firstLoss, r.identicalNote, o.seed)
		return exitLoss
	}
	return 0
}

func workDir(o options) (string, func(), error) {
	if o.dir != "" {
		return o.dir, func() {}, os.MkdirAll(o.dir, 0o700)
	}
	dir, err := os.MkdirTemp("", "iggy-chaos-")
	if err != nil {
		return "", nil, err
	}
	if o.keep {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// result is what a run saw.
type result struct {
	v                          verification
	kills, leaderChanges       int
	sendErrors, offsetBackward uint64
	offsetStores               uint64
	identical                  bool
	identicalNote              string
	outage                     outageReport
}

func (r result) summary(o options) string {
	yes := "no"
	if r.identical {
		yes = "yes"
	}
	return fmt.Sprintf("chaos: nodes %d, %v, seed %d: acked %d, present %d, lost %d, kills %d, view changes seen %d, offset stores %d, offsets back %d, send retries %d, identical: %s",
		o.nodes, o.duration, o.seed, r.v.acked, r.v.present, r.v.lost, r.kills, r.leaderChanges, r.offsetStores, r.offsetBackward, r.sendErrors, yes)
}

// chaos starts the set, runs the workload while killing nodes, heals the
// set and verifies it.
func chaos(o options, dir string) (result, error) {
	var r result
	nodes, err := newNodes(o.bin, dir, o.nodes)
	if err != nil {
		return r, err
	}
	defer func() {
		for _, n := range nodes {
			n.kill()
		}
	}()
	for _, n := range nodes {
		if err := n.start(); err != nil {
			return r, err
		}
	}
	addrs := make([]string, len(nodes))
	for i, n := range nodes {
		addrs[i] = n.addr
	}
	w := &workload{addrs: addrs, partitions: uint32(o.partitions), rf: uint8(o.rf), workers: uint32(o.workers)}
	if err := w.setUp(); err != nil {
		return r, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		w.run(stop)
		close(done)
	}()
	if o.outage > 0 {
		r.outage, err = outage(nodes, w, o)
		r.kills = 1
	} else {
		r.kills, r.leaderChanges, err = killLoop(nodes, addrs, o)
	}
	close(stop)
	<-done
	if err != nil {
		return r, err
	}
	time.Sleep(healPause)
	if r.v, err = w.verify(); err != nil {
		return r, err
	}
	r.sendErrors, r.offsetBackward, r.offsetStores = w.sendErrors.Load(), w.offsetBackward.Load(), w.offsetStores.Load()
	for _, n := range nodes {
		if err := n.stop(); err != nil {
			return r, err
		}
	}
	r.identical, r.identicalNote, err = identicalPartitions(nodes)
	return r, err
}

// killLoop kills a random node every killGapMin..killGapMax and restarts
// it after up to downtimeMax, until the duration is over, counting the
// changes of metadata leader it sees. Only one node is down at a time: a
// minority of any set of three or more.
func killLoop(nodes []*node, addrs []string, o options) (kills, leaderChanges int, err error) {
	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	end := time.Now().Add(o.duration)
	leader := leaderOf(addrs)
	for time.Now().Before(end) {
		time.Sleep(killGapMin + time.Duration(rng.Int64N(int64(killGapMax-killGapMin))))
		if !time.Now().Before(end) {
			break
		}
		victim := nodes[rng.IntN(len(nodes))]
		victim.kill()
		kills++
		time.Sleep(time.Duration(rng.Int64N(int64(downtimeMax))))
		if err := victim.start(); err != nil {
			return kills, leaderChanges, err
		}
		if l := leaderOf(addrs); l >= 0 && l != leader {
			if leader >= 0 {
				leaderChanges++
			}
			leader = l
		}
	}
	return kills, leaderChanges, nil
}
