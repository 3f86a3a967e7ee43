//go:build debug

package config

// unknownEnvIsFatal: in builds with the debug tag an unknown IGGY_ variable
// stops the boot (CONF-8, decisions.md).
const unknownEnvIsFatal = true
