package config

import (
	"fmt"
	"strings"
)

// problemsMax bounds the problems listed in one boot error; the rest are counted.
const problemsMax = 32

// checker collects every problem so one boot error lists them all.
type checker struct {
	problems []string
	warnings []string
}

func (c *checker) check(ok bool, format string, args ...any) {
	if !ok {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

func (c *checker) warn(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	shown := c.problems
	suffix := ""
	if len(shown) > problemsMax {
		suffix = fmt.Sprintf("; and %d more", len(shown)-problemsMax)
		shown = shown[:problemsMax]
	}
	return fmt.Errorf("%w: %s%s", ErrInvalidConfiguration, strings.Join(shown, "; "), suffix)
}

// validate runs the per-key (config.md §4) and cross-key (§9) checks.
// Errors stop the boot; warnings do not. Messages never hold secret values.
func validate(cfg *Config, numCPU int) ([]string, error) {
	var c checker
	validateSessions(&c, cfg)
	validateSystem(&c, &cfg.System)
	validateLogging(&c, &cfg.Logging)
	validateEncryption(&c, &cfg.Encryption)
	validateSharding(&c, &cfg.Sharding, numCPU)
	validateExternalAuth(&c, &cfg.ExternalAuth)
	validateTelemetry(&c, &cfg.Telemetry)
	validateTCP(&c, &cfg.TCP)
	validateQUIC(&c, &cfg.QUIC)
	validateHTTP(&c, &cfg.HTTP)
	validateWebSocket(&c, &cfg.WebSocket, cfg.MessageBus.MaxMessageSize)
	validateAdvertised(&c, cfg)
	validateMetadata(&c, &cfg.Metadata)
	validatePartition(&c, &cfg.Partition, cfg.MessageBus.MaxMessageSize)
	validateMessageBus(&c, &cfg.MessageBus, cfg.Cluster.RepairChunkMax)
	validateCluster(&c, cfg, cfg.Sharding.CPUAllocation.ShardCount(numCPU))
	validateDebug(&c, &cfg.Debug)
	return c.warnings, c.err()
}
