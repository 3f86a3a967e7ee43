//go:build !debug

package config

// unknownEnvIsFatal: in ordinary builds an unknown IGGY_ variable only warns
// (CONF-9, decisions.md).
const unknownEnvIsFatal = false
