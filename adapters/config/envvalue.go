package config

import (
	"strconv"
	"strings"
)

// envListItemsMax bounds the elements of one bracket-syntax list variable.
const envListItemsMax = 1024

// inferEnvValue types an environment value (config.md §7.2): "[...]" is a
// list, true/false (any case) a boolean, then u64, i64, f64, else a string.
// The caller drops empty values before calling.
func inferEnvValue(raw string) any {
	t := strings.TrimSpace(raw)
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		return inferEnvList(t[1 : len(t)-1])
	}
	return inferEnvScalar(raw)
}

func inferEnvScalar(s string) any {
	if strings.EqualFold(s, "true") {
		return true
	}
	if strings.EqualFold(s, "false") {
		return false
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if isDecimalFloat(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}

// isDecimalFloat keeps Go-only float spellings (hex, underscores) strings, as
// Rust's f64 parser does not read them.
func isDecimalFloat(s string) bool {
	lower := strings.ToLower(s)
	return !strings.Contains(lower, "0x") && !strings.Contains(s, "_")
}

// inferEnvList splits on commas outside double quotes, trims each element,
// strips surrounding quotes and types each element like a scalar.
func inferEnvList(body string) []any {
	out := []any{}
	if strings.TrimSpace(body) == "" {
		return out
	}
	for _, item := range splitOutsideQuotes(body) {
		item = strings.TrimSpace(item)
		if len(item) >= 2 && item[0] == '"' && item[len(item)-1] == '"' {
			item = item[1 : len(item)-1]
		}
		out = append(out, inferEnvScalar(item))
	}
	return out
}

func splitOutsideQuotes(s string) []string {
	var parts []string
	start, quoted := 0, false
	for i := 0; i < len(s) && len(parts) < envListItemsMax; i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
