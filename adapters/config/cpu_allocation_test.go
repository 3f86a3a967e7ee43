package config

import (
	"reflect"
	"testing"
)

func TestParseCPUAllocation(t *testing.T) {
	cases := []struct {
		in   string
		want CPUAllocation
	}{
		{"all", CPUAllocation{Kind: CPUAll}},
		{"4", CPUAllocation{Kind: CPUCount, Count: 4}},
		{"2..6", CPUAllocation{Kind: CPURange, RangeStart: 2, RangeEnd: 6}},
		{"numa:auto", CPUAllocation{Kind: CPUNUMA, NUMAAuto: true}},
		{"numa:nodes=0,1;cores=4;no_ht=true", CPUAllocation{Kind: CPUNUMA, NUMANodes: []uint32{0, 1}, NUMACores: 4, NUMANoHT: true}},
	}
	for _, c := range cases {
		got, err := ParseCPUAllocation(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseCPUAllocation(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "6..2", "3..3", "numa:bogus=1", "numa:nodes=x", "some"} {
		if _, err := ParseCPUAllocation(bad); err == nil {
			t.Errorf("ParseCPUAllocation(%q) succeeded", bad)
		}
	}
	if got := (CPUAllocation{Kind: CPURange, RangeStart: 2, RangeEnd: 6}).ShardCount(8); got != 4 {
		t.Errorf("range shard count = %d", got)
	}
}
