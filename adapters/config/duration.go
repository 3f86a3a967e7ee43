package config

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// durationSpansMax bounds the "<n><unit>" spans of one duration string.
const durationSpansMax = 32

// durationUnitsSeconds maps each humantime unit spelling (config.md §3.1 table)
// to its length; sub-second units are handled by durationUnitsNanos.
var durationUnitsSeconds = map[string]uint64{
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
	"d": 86400, "day": 86400, "days": 86400,
	"w": 604800, "wk": 604800, "wks": 604800, "week": 604800, "weeks": 604800,
	"M": 2630016, "month": 2630016, "months": 2630016,
	"y": 31557600, "yr": 31557600, "yrs": 31557600, "year": 31557600, "years": 31557600,
}

var durationUnitsNanos = map[string]uint64{
	"ns": 1, "nsec": 1, "nanos": 1,
	"us": 1e3, "usec": 1e3, "µs": 1e3,
	"ms": 1e6, "msec": 1e6, "millis": 1e6,
}

// ParseDuration parses a plain duration ("dur", config.md §3.1 A): the input
// is lower-cased; "0", "unlimited", "disabled" and "none" mean zero; otherwise
// one or more "<integer><unit>" spans with optional whitespace.
func ParseDuration(s string) (time.Duration, error) {
	lower := strings.ToLower(s)
	switch lower {
	case "0", "unlimited", "disabled", "none":
		return 0, nil
	}
	return parseHumantime(lower)
}

// parseHumantime parses the humantime grammar, case-sensitively (the caller
// decides about lower-casing: "1M" is a month only for expiries).
func parseHumantime(s string) (time.Duration, error) {
	rest := strings.TrimSpace(s)
	if rest == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var totalNanos uint64
	for spans := 0; rest != ""; spans++ {
		if spans == durationSpansMax {
			return 0, fmt.Errorf("duration %q has more than %d parts", s, durationSpansMax)
		}
		n, unit, tail, err := nextDurationSpan(rest)
		if err != nil {
			return 0, fmt.Errorf("duration %q: %w", s, err)
		}
		nanos, err := spanNanos(n, unit)
		if err != nil {
			return 0, fmt.Errorf("duration %q: %w", s, err)
		}
		if totalNanos > math.MaxInt64-nanos {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		totalNanos += nanos
		rest = strings.TrimSpace(tail)
	}
	return time.Duration(totalNanos), nil
}

// nextDurationSpan splits "<digits>[ ]<letters>" off the front of s.
func nextDurationSpan(s string) (n uint64, unit, tail string, err error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n > (math.MaxUint64-9)/10 {
			return 0, "", "", fmt.Errorf("number too large")
		}
		n = n*10 + uint64(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, "", "", fmt.Errorf("expected a number at %q", s)
	}
	rest := strings.TrimLeft(s[i:], " \t")
	j := strings.IndexFunc(rest, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == 'µ')
	})
	if j < 0 {
		j = len(rest)
	}
	if j == 0 {
		return 0, "", "", fmt.Errorf("a unit is required after %d (e.g. %ds)", n, n)
	}
	return n, rest[:j], rest[j:], nil
}

// spanNanos converts one span to nanoseconds, refusing what time.Duration cannot hold.
func spanNanos(n uint64, unit string) (uint64, error) {
	mul, ok := durationUnitsNanos[unit]
	if !ok {
		secs, ok := durationUnitsSeconds[unit]
		if !ok {
			return 0, fmt.Errorf("unknown unit %q", unit)
		}
		mul = secs * uint64(time.Second)
	}
	if n != 0 && mul > math.MaxInt64/n {
		return 0, fmt.Errorf("too long")
	}
	return n * mul, nil
}

// ExpiryKind tells how an Expiry is to be read.
type ExpiryKind uint8

// Expiry kinds.
const (
	ExpiryDuration ExpiryKind = iota
	ExpiryNever
	ExpiryServerDefault
)

// expirySecondsMax: an expiry duration must fit u32 seconds.
const expirySecondsMax = math.MaxUint32

// Expiry is an expiry value (config.md §3.1 B).
type Expiry struct {
	Kind     ExpiryKind
	Duration time.Duration
}

// ParseExpiry parses an expiry: never-expire words, server-default words, or
// a case-sensitive humantime duration of at most u32::MAX seconds.
func ParseExpiry(s string) (Expiry, error) {
	switch s {
	case "unlimited", "Unlimited", "none", "None", "never_expire":
		return Expiry{Kind: ExpiryNever}, nil
	case "default", "Default", "server_default", "Server_default":
		return Expiry{Kind: ExpiryServerDefault}, nil
	}
	d, err := parseHumantime(s)
	if err != nil {
		return Expiry{}, err
	}
	if d > expirySecondsMax*time.Second {
		return Expiry{}, fmt.Errorf("expiry %q exceeds %d seconds", s, uint64(expirySecondsMax))
	}
	return Expiry{Kind: ExpiryDuration, Duration: d}, nil
}

func (e *Expiry) decodeConfigValue(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected an expiry string such as \"1 h\" or \"unlimited\", got %s", describeValue(v))
	}
	parsed, err := ParseExpiry(s)
	if err != nil {
		return err
	}
	*e = parsed
	return nil
}

// consensusTick is the cluster timing quantum.
const consensusTick = 10 * time.Millisecond

// quantizeTick rounds d down to a whole tick; a positive d under one tick
// becomes one tick, so a set value never silently turns into "disabled".
func quantizeTick(d time.Duration) time.Duration {
	if d > 0 && d < consensusTick {
		return consensusTick
	}
	return d - d%consensusTick
}
