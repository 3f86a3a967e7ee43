package config

import (
	_ "embed"
	"errors"
)

// defaultTOML is the shipped configuration, always the base layer (config.md §2 step 4).
//
//go:embed config.toml
var defaultTOML []byte

// DefaultTOML returns a copy of the embedded default configuration file.
func DefaultTOML() []byte {
	return append([]byte(nil), defaultTOML...)
}

// ErrInvalidConfiguration wraps every reason Load refuses to boot
// (upstream's InvalidConfigurationValue).
var ErrInvalidConfiguration = errors.New("invalid configuration")
