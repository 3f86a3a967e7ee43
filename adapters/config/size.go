package config

import (
	"fmt"
	"math/big"
	"strings"
)

// sizeDigitsMax bounds the digits of a size number (2^64 has 20 digits; the
// fraction may add a few more).
const sizeDigitsMax = 64

var sizePrefixes = map[byte]uint{'K': 1, 'M': 2, 'G': 3, 'T': 4, 'P': 5, 'E': 6}

// ParseSize parses a byte size (config.md §3.2): "<number>[ spaces][<unit>]"
// with an optional ".fraction"; unit = [KMGTPE] (any case) + optional "i"
// (1024-based) + "B" (bytes), "b"/"bit"/"bits" (bits) or nothing (bytes).
// Fractional bytes round up. The result must fit 64 bits.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	number, unit := splitSizeNumber(t)
	if number == "" {
		return 0, fmt.Errorf("size %q: expected a number", s)
	}
	if len(number) > sizeDigitsMax {
		return 0, fmt.Errorf("size %q: number too long", s)
	}
	mantissa, scale, err := parseSizeNumber(number)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	multiplier, bits, err := parseSizeUnit(strings.TrimLeft(unit, " \t"))
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	num := new(big.Int).Mul(mantissa, multiplier)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	if bits {
		den.Mul(den, big.NewInt(8))
	}
	// Round up: (num + den - 1) / den.
	num.Add(num, den).Sub(num, big.NewInt(1)).Quo(num, den)
	if !num.IsUint64() {
		return 0, fmt.Errorf("size %q exceeds 2^64-1 bytes", s)
	}
	return num.Uint64(), nil
}

// ParseSizeOrUnlimited is ParseSize plus "0", "unlimited", "Unlimited",
// "none" and "None" meaning 0 bytes (the string path of §3.2).
func ParseSizeOrUnlimited(s string) (uint64, error) {
	switch strings.TrimSpace(s) {
	case "0", "unlimited", "Unlimited", "none", "None":
		return 0, nil
	}
	return ParseSize(s)
}

// splitSizeNumber splits the leading digits-and-dots from the unit.
func splitSizeNumber(s string) (number, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], s[i:]
}

// parseSizeNumber returns digits as an integer and the count of fraction digits.
func parseSizeNumber(number string) (*big.Int, int, error) {
	whole, frac, hasDot := strings.Cut(number, ".")
	if whole == "" || hasDot && frac == "" || strings.Contains(frac, ".") {
		return nil, 0, fmt.Errorf("malformed number %q", number)
	}
	mantissa, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return nil, 0, fmt.Errorf("malformed number %q", number)
	}
	return mantissa, len(frac), nil
}

// parseSizeUnit returns the byte (or bit) multiplier of a unit and whether it counts bits.
func parseSizeUnit(unit string) (*big.Int, bool, error) {
	multiplier := big.NewInt(1)
	rest := unit
	if rest != "" {
		if power, ok := sizePrefixes[upperASCII(rest[0])]; ok {
			base := int64(1000)
			rest = rest[1:]
			if rest != "" && (rest[0] == 'i' || rest[0] == 'I') {
				base = 1024
				rest = rest[1:]
			}
			multiplier.Exp(big.NewInt(base), big.NewInt(int64(power)), nil)
		}
	}
	switch {
	case rest == "" || rest == "B":
		return multiplier, false, nil
	case rest == "b" || strings.EqualFold(rest, "bit") || strings.EqualFold(rest, "bits"):
		return multiplier, true, nil
	}
	return nil, false, fmt.Errorf("unknown unit %q", unit)
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
