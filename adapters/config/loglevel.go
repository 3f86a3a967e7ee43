package config

import "strings"

// logDirectivesMax bounds the comma-separated directives of a level filter.
const logDirectivesMax = 64

var logLevels = []string{"trace", "debug", "info", "warn", "error", "off", "none"}

// ValidLogLevel reports whether level is a level filter the server accepts
// (CONF-11): a level (trace, debug, info, warn, error, off, none; any case)
// or comma-separated directives "level" / "target=level". A bare word that
// is not a level is refused, so a typo cannot silently log everything.
func ValidLogLevel(level string) bool {
	directives := strings.Split(level, ",")
	if strings.TrimSpace(level) == "" || len(directives) > logDirectivesMax {
		return false
	}
	for _, d := range directives {
		target, lvl, hasTarget := strings.Cut(strings.TrimSpace(d), "=")
		if !hasTarget {
			lvl, target = target, ""
		}
		if hasTarget && !validLogTarget(target) || !isLogLevel(lvl) {
			return false
		}
	}
	return true
}

func isLogLevel(s string) bool {
	for _, l := range logLevels {
		if strings.EqualFold(strings.TrimSpace(s), l) {
			return true
		}
	}
	return false
}

func validLogTarget(target string) bool {
	if target == "" {
		return false
	}
	for _, r := range target {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_:.-/", r)) {
			return false
		}
	}
	return true
}
