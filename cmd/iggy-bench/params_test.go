package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// covers TOOL-14
func TestParseExactForm(t *testing.T) {
	p, err := parseParams(strings.Fields("pinned-producer --addr 127.0.0.1:8090 --actors 8 --message-size 1000 "+
		"--messages-per-batch 1000 --duration 10s --json --durability persisted --rate-limit 800MB/s --warmup 2s"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if p.Workload != workloadPinnedProducer || p.Actors != 8 || p.Streams != 8 || p.Partitions != 1 ||
		p.MessageSize != 1000 || p.MessagesPerBatch != 1000 || p.duration != 10*time.Second || !p.JSON ||
		p.Durability != "persisted" || p.RateLimitMBps != 800 || p.warmup != 2*time.Second {
		t.Fatalf("%+v", p)
	}
}

func TestParseDefaultsByWorkload(t *testing.T) {
	p, err := parseParams(strings.Fields("--actors 4 balanced-producer --total-messages 1000"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if p.Streams != 1 || p.Partitions != 4 || p.batchesPerActor() != 1 {
		t.Fatalf("%+v", p)
	}
}

func TestParseRefusals(t *testing.T) {
	for _, args := range []string{
		"pinned-producer --duration 1s --total-messages 5",
		"pinned-producer",
		"nope --duration 1s",
		"pinned-producer --duration 1s --transport http",
		"pinned-producer --duration 1s --durability sometimes",
		"pinned-producer --duration 1s --actors 2 --streams 1",
		"pinned-producer --duration 1s --message-size 1000000 --messages-per-batch 1000",
		"pinned-producer --duration 1s --rate-limit fast",
		"pinned-producer --duration 1s --cold",
		"pinned-consumer --duration 1s --cold --warmup 1s",
		"balanced-producer --duration 1s --addr a:1,b:2,c:3",
		"pinned-producer --duration 1s --partitions 2 --addr a:1,b:2,c:3",
		"pinned-producer --duration 1s --addr a:1,,c:3",
	} {
		if _, err := parseParams(strings.Fields(args), io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// A replica set's nodes are given in replica-id order.
func TestParseClusterAddrs(t *testing.T) {
	p, err := parseParams(strings.Fields("pinned-consumer --duration 1s --actors 2 --addr a:1,b:2,c:3"), io.Discard)
	if err != nil || !p.cluster() || strings.Join(p.addrs, " ") != "a:1 b:2 c:3" {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"800MB/s": 800, "800 MB/s": 800, "500": 500, "1.5GB/s": 1500, "250kb/s": 0.25} {
		if got, err := parseRate(in); err != nil || got != want {
			t.Errorf("%q = %v %v, want %v", in, got, err, want)
		}
	}
}
