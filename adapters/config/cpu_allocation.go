package config

import (
	"fmt"
	"strconv"
	"strings"
)

// CPUKind tells how shards are placed on cores.
type CPUKind uint8

// CPU allocation kinds (config.md §3.3).
const (
	CPUAll   CPUKind = iota // one shard per available core
	CPUCount                // Count shards on cores 0..Count-1
	CPURange                // shards on cores RangeStart..RangeEnd-1
	CPUNUMA                 // NUMA-aware placement
)

// shardCountMax bounds an explicit shard count (far above any core count).
const shardCountMax = 1 << 16

// numaNodesMax bounds the node list of a "numa:nodes=" allocation.
const numaNodesMax = 64

// CPUAllocation is the parsed sharding.cpu_allocation.
type CPUAllocation struct {
	Kind       CPUKind
	Count      uint32
	RangeStart uint32
	RangeEnd   uint32
	// NUMAAuto: "numa:auto"; otherwise the explicit NUMA settings below.
	NUMAAuto  bool
	NUMANodes []uint32
	NUMACores uint32
	NUMANoHT  bool
}

// ParseCPUAllocation parses "all", "N", "a..b", "numa:auto" or
// "numa:nodes=0,1;cores=4;no_ht=true".
func ParseCPUAllocation(s string) (CPUAllocation, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "all":
		return CPUAllocation{Kind: CPUAll}, nil
	case t == "numa:auto":
		return CPUAllocation{Kind: CPUNUMA, NUMAAuto: true}, nil
	case strings.HasPrefix(t, "numa:"):
		return parseNUMA(strings.TrimPrefix(t, "numa:"))
	case strings.Contains(t, ".."):
		a, b, _ := strings.Cut(t, "..")
		start, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 32)
		end, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 32)
		if err1 != nil || err2 != nil {
			return CPUAllocation{}, fmt.Errorf("cpu_allocation %q: a range is \"start..end\"", s)
		}
		if start >= end {
			return CPUAllocation{}, fmt.Errorf("cpu_allocation %q: empty range", s)
		}
		return CPUAllocation{Kind: CPURange, RangeStart: uint32(start), RangeEnd: uint32(end)}, nil
	}
	n, err := strconv.ParseUint(t, 10, 32)
	if err != nil {
		return CPUAllocation{}, fmt.Errorf("cpu_allocation %q: expected all, a count, a range a..b or numa:...", s)
	}
	return countAllocation(uint64(n))
}

func countAllocation(n uint64) (CPUAllocation, error) {
	if n == 0 || n > shardCountMax {
		return CPUAllocation{}, fmt.Errorf("cpu_allocation: shard count %d is outside 1..=%d", n, shardCountMax)
	}
	return CPUAllocation{Kind: CPUCount, Count: uint32(n)}, nil
}

func parseNUMA(spec string) (CPUAllocation, error) {
	out := CPUAllocation{Kind: CPUNUMA}
	for _, part := range strings.Split(spec, ";") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return CPUAllocation{}, fmt.Errorf("cpu_allocation numa:%s: expected key=value, got %q", spec, part)
		}
		var err error
		switch strings.TrimSpace(key) {
		case "nodes":
			out.NUMANodes, err = parseNUMANodes(value)
		case "cores":
			var n uint64
			n, err = strconv.ParseUint(strings.TrimSpace(value), 10, 32)
			out.NUMACores = uint32(n)
		case "no_ht":
			out.NUMANoHT, err = strconv.ParseBool(strings.TrimSpace(value))
		default:
			err = fmt.Errorf("unknown key %q (nodes, cores, no_ht)", key)
		}
		if err != nil {
			return CPUAllocation{}, fmt.Errorf("cpu_allocation numa:%s: %w", spec, err)
		}
	}
	return out, nil
}

func parseNUMANodes(value string) ([]uint32, error) {
	items := strings.Split(value, ",")
	if len(items) > numaNodesMax {
		return nil, fmt.Errorf("more than %d nodes", numaNodesMax)
	}
	nodes := make([]uint32, 0, len(items))
	for _, item := range items {
		n, err := strconv.ParseUint(strings.TrimSpace(item), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("node %q is not a number", item)
		}
		nodes = append(nodes, uint32(n))
	}
	return nodes, nil
}

// ShardCount is the number of shards for availableCPUs cores; NUMA
// placement uses every available core (the Go runtime schedules threads).
func (a CPUAllocation) ShardCount(availableCPUs int) int {
	switch a.Kind {
	case CPUCount:
		return int(a.Count)
	case CPURange:
		return int(a.RangeEnd - a.RangeStart)
	}
	return availableCPUs
}

func (a *CPUAllocation) decodeConfigValue(v any) error {
	switch x := v.(type) {
	case string:
		parsed, err := ParseCPUAllocation(x)
		if err != nil {
			return err
		}
		*a = parsed
		return nil
	case int64:
		if x < 0 {
			return fmt.Errorf("cpu_allocation: negative shard count %d", x)
		}
		parsed, err := countAllocation(uint64(x))
		*a = parsed
		return err
	case uint64:
		parsed, err := countAllocation(x)
		*a = parsed
		return err
	}
	return fmt.Errorf("expected \"all\", a count, \"a..b\" or \"numa:...\", got %s", describeValue(v))
}

// ReplicationFactor is "all" (ReplicationAll) or a member count 1..=32.
type ReplicationFactor uint8

// ReplicationAll places a topic's partitions on every replica.
const ReplicationAll ReplicationFactor = 0

// ReplicationFactorMax is the largest numeric replication factor (the VSR replica limit).
const ReplicationFactorMax = 32

func (f *ReplicationFactor) decodeConfigValue(v any) error {
	var n uint64
	switch x := v.(type) {
	case string:
		if x == "all" {
			*f = ReplicationAll
			return nil
		}
		parsed, err := strconv.ParseUint(x, 10, 8)
		if err != nil {
			return fmt.Errorf("expected \"all\" or 1..=%d, got %q", ReplicationFactorMax, x)
		}
		n = parsed
	case int64:
		if x < 0 {
			return fmt.Errorf("expected \"all\" or 1..=%d, got %d", ReplicationFactorMax, x)
		}
		n = uint64(x)
	case uint64:
		n = x
	default:
		return fmt.Errorf("expected \"all\" or 1..=%d, got %s", ReplicationFactorMax, describeValue(v))
	}
	if n < 1 || n > ReplicationFactorMax {
		return fmt.Errorf("expected \"all\" or 1..=%d, got %d", ReplicationFactorMax, n)
	}
	*f = ReplicationFactor(n)
	return nil
}
