package config

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0}, {"none", 0}, {"Disabled", 0}, {"UNLIMITED", 0},
		{"30s", 30 * time.Second}, {"1 m", time.Minute}, {"1 h", time.Hour},
		{"7 days", 7 * 24 * time.Hour}, {"1h 30m", 90 * time.Minute}, {"1h30m", 90 * time.Minute},
		{"500ms", 500 * time.Millisecond}, {"  5 s  ", 5 * time.Second}, {"0 s", 0},
		{"10ns", 10}, {"3nanos", 3}, {"2us", 2 * time.Microsecond}, {"2µs", 2 * time.Microsecond},
		{"4 millis", 4 * time.Millisecond}, {"2 secs", 2 * time.Second}, {"3 mins", 3 * time.Minute},
		{"2hrs", 2 * time.Hour}, {"1w", 7 * 24 * time.Hour}, {"2 wks", 14 * 24 * time.Hour},
		{"1 month", 2630016 * time.Second}, {"1y", 31557600 * time.Second},
		// Lower-casing makes "1M" one minute (config.md §3.1).
		{"1M", time.Minute}, {"1H", time.Hour},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "5", "1.5s", "-1s", "5 parsecs", "s", "1h x", "1000000 years"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
}

func TestParseExpiry(t *testing.T) {
	cases := []struct {
		in   string
		want Expiry
	}{
		{"unlimited", Expiry{Kind: ExpiryNever}}, {"None", Expiry{Kind: ExpiryNever}},
		{"never_expire", Expiry{Kind: ExpiryNever}},
		{"server_default", Expiry{Kind: ExpiryServerDefault}}, {"Default", Expiry{Kind: ExpiryServerDefault}},
		{"1 h", Expiry{Duration: time.Hour}},
		// Not lower-cased: "1M" is a month.
		{"1M", Expiry{Duration: 2630016 * time.Second}},
	}
	for _, c := range cases {
		got, err := ParseExpiry(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseExpiry(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"1H", "UNLIMITED", "200 years", ""} {
		if _, err := ParseExpiry(bad); err == nil {
			t.Errorf("ParseExpiry(%q) succeeded", bad)
		}
	}
}

func TestQuantizeTick(t *testing.T) {
	cases := []struct{ in, want time.Duration }{
		{0, 0}, {time.Millisecond, 10 * time.Millisecond}, {15 * time.Millisecond, 10 * time.Millisecond},
		{250 * time.Millisecond, 250 * time.Millisecond}, {1999 * time.Microsecond, 10 * time.Millisecond},
	}
	for _, c := range cases {
		if got := quantizeTick(c.in); got != c.want {
			t.Errorf("quantizeTick(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1h 30m", "7 days", "500ms", "0", "1M", "99999999999999999999s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("negative duration %v from %q", d, s)
		}
		_, _ = ParseExpiry(s)
	})
}
