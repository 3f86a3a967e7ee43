package partition

import "testing"

func TestSegmentNames(t *testing.T) {
	if got := segmentName(0, extLog); got != "00000000000000000000.log" {
		t.Fatalf("name %q", got)
	}
	if got := segmentName(18446744073709551615, extIndex); got != "18446744073709551615.index" {
		t.Fatalf("name %q", got)
	}
	for name, want := range map[string]bool{
		"00000000000000000042.log":   true,
		"00000000000000000042.index": true,
		"00000000000000000042.txt":   false,
		"0000000000000000042.log":    false,
		"0000000000000000004x.log":   false,
		"99999999999999999999.log":   false, // beyond u64
		"purge.gen":                  false,
		"offsets":                    false,
	} {
		start, _, ok := parseSegmentName(name)
		if ok != want || (ok && start != 42) {
			t.Errorf("parseSegmentName(%q) = %d, %v", name, start, ok)
		}
	}
}
