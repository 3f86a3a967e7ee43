package config

import "testing"

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
	}{
		{"2 MB", 2_000_000}, {"64 MiB", 67_108_864}, {"1200 B", 1200}, {"1 GiB", 1 << 30},
		{"500 mb", 62_500_000}, // lower-case b = bits (config.md §3.2 trap)
		{"10k", 10_000}, {"10Ki", 10_240}, {"1.5 KB", 1500}, {"1.5 KiB", 1536},
		{"123", 123}, {" 4 GB ", 4_000_000_000}, {"0", 0}, {"16 bits", 2}, {"9 bit", 2},
		{"1 b", 1}, {"3136.5 KiB", 3_211_776}, {"1.0001 KB", 1001}, {"1 EiB", 1 << 60},
		{"18446744073709551615", 1<<64 - 1}, {"2176 MiB", 2176 << 20}, {"1Kb", 125},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "MB", "1.", ".5 KB", "1..2", "16 EiB", "18446744073709551616",
		"1 XB", "-1", "1e3", "unlimited", "5 MiBs", "1 KiB extra"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, got)
		}
	}
}

func TestParseSizeOrUnlimited(t *testing.T) {
	for _, s := range []string{"0", "unlimited", "Unlimited", "none", "None"} {
		if got, err := ParseSizeOrUnlimited(s); err != nil || got != 0 {
			t.Errorf("ParseSizeOrUnlimited(%q) = %d, %v", s, got, err)
		}
	}
	if got, err := ParseSizeOrUnlimited("1 MiB"); err != nil || got != 1<<20 {
		t.Errorf("ParseSizeOrUnlimited(1 MiB) = %d, %v", got, err)
	}
	if _, err := ParseSizeOrUnlimited("NONE"); err == nil {
		t.Error("NONE accepted")
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"2 MB", "64 MiB", "1.5 KB", "500 mb", "18446744073709551615", "9 bits"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseSize(s)
		_, _ = ParseSizeOrUnlimited(s)
	})
}
