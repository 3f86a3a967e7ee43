package wire

import (
	"math"
	"math/big"
	"strings"
	"unicode"
)

// Option values may arrive as strings in config-file syntax ("7 days",
// "1 GiB", "true"); these parsers follow config.md 3.1 (humantime) and 3.2
// (byte-unit). They take at most 255 bytes (one TLV value), so every loop is
// bounded by the input.

// byteUnitPrefixes maps a byte-unit prefix letter to its power.
var byteUnitPrefixes = map[byte]int{'k': 1, 'm': 2, 'g': 3, 't': 4, 'p': 5, 'e': 6}

// parseByteSize parses `<number>[ ][<unit>]`: a decimal number with an optional
// fraction, then an optional unit (K/M/G/T/P/E case-insensitive, optional i for
// 1024-based, then B bytes, b or bit(s) bits, or nothing for bytes). Fractional
// bytes round up; a result above u64 fails.
func parseByteSize(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	digits, fraction := s[:i], ""
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0, false
		}
		fraction, i = s[i+1:j], j
	}
	mult, bits, ok := byteUnit(strings.TrimLeft(s[i:], " "))
	if !ok {
		return 0, false
	}
	num, _ := new(big.Int).SetString(digits+fraction, 10)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(fraction))), nil)
	num.Mul(num, mult)
	if bits {
		den.Mul(den, big.NewInt(8))
	}
	// Ceiling division: fractional bytes round up.
	num.Add(num, den).Sub(num, big.NewInt(1)).Quo(num, den)
	if !num.IsUint64() {
		return 0, false
	}
	return num.Uint64(), true
}

// byteUnit returns the multiplier of a unit suffix and whether it counts bits.
func byteUnit(u string) (*big.Int, bool, bool) {
	mult := big.NewInt(1)
	if u == "" {
		return mult, false, true
	}
	if power, ok := byteUnitPrefixes[lowerASCII(u[0])]; ok {
		base := int64(1000)
		u = u[1:]
		if u != "" && (u[0] == 'i' || u[0] == 'I') {
			base, u = 1024, u[1:]
		}
		mult.Exp(big.NewInt(base), big.NewInt(int64(power)), nil)
	}
	switch {
	case u == "" || u == "B":
		return mult, false, true
	case u == "b" || strings.EqualFold(u, "bit") || strings.EqualFold(u, "bits"):
		return mult, true, true
	}
	return nil, false, false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// humantimeUnitsNanos maps humantime 2.x unit spellings (case-sensitive) to
// nanoseconds. Months are 30.44 days and years 365.25 days, as upstream.
var humantimeUnitsNanos = map[string]uint64{
	"ns": 1, "nsec": 1, "nanos": 1,
	"us": 1e3, "usec": 1e3, "µs": 1e3,
	"ms": 1e6, "msec": 1e6, "millis": 1e6,
	"s": 1e9, "sec": 1e9, "secs": 1e9, "second": 1e9, "seconds": 1e9,
	"m": 60e9, "min": 60e9, "mins": 60e9, "minute": 60e9, "minutes": 60e9,
	"h": 3600e9, "hr": 3600e9, "hrs": 3600e9, "hour": 3600e9, "hours": 3600e9,
	"d": 86400e9, "day": 86400e9, "days": 86400e9,
	"w": 604800e9, "wk": 604800e9, "wks": 604800e9, "week": 604800e9, "weeks": 604800e9,
	"M": 2_630_016e9, "month": 2_630_016e9, "months": 2_630_016e9,
	"y": 31_557_600e9, "yr": 31_557_600e9, "yrs": 31_557_600e9, "year": 31_557_600e9,
	"years": 31_557_600e9,
}

// parseHumantimeMicros parses one or more `<integer>[ ]<unit>` spans ("7 days",
// "1h 30m") into microseconds; "0" alone is zero. Sub-microsecond remainders
// are dropped. Overflow fails.
func parseHumantimeMicros(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, true
	}
	if s == "" {
		return 0, false
	}
	var totalNanos uint64
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i > 19 {
			return 0, false
		}
		n := parseDigits(s[:i])
		s = strings.TrimLeft(s[i:], " ")
		j := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
		if j < 0 {
			j = len(s)
		}
		unitNanos, ok := humantimeUnitsNanos[s[:j]]
		if !ok || (n != 0 && unitNanos > math.MaxUint64/n) {
			return 0, false
		}
		span := n * unitNanos
		if totalNanos > math.MaxUint64-span {
			return 0, false
		}
		totalNanos += span
		s = strings.TrimLeft(s[j:], " ")
	}
	return totalNanos / 1e3, true
}

// parseDigits converts at most 19 ASCII digits, which always fit a u64.
func parseDigits(d string) uint64 {
	var n uint64
	for i := 0; i < len(d); i++ {
		n = n*10 + uint64(d[i]-'0')
	}
	return n
}

// parseDecimalU32 parses a plain decimal u32 (no sign, no unit).
func parseDecimalU32(s string) (uint32, bool) {
	if s == "" || len(s) > 10 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n := parseDigits(s)
	return uint32(n), n <= math.MaxUint32
}

// parseBoolWord accepts true or false in any case.
func parseBoolWord(s string) (bool, bool) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}
