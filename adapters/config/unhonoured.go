package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/knadh/koanf/maps"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// unhonoured are the keys that parse and validate but that no code reads
// yet, with what is missing. A user who sets one (to anything but its
// default) is warned at boot, so a setting never silently does nothing.
// A key leaves this list in the change that makes it work; README lists
// the same keys.
var unhonoured = []struct{ prefix, why string }{
	{"cluster.enabled", "replica links are not built yet: this node runs alone"},
	{"cluster.name", "replica links are not built yet"},
	{"cluster.nodes", "replica links are not built yet: the roster is not used"},
	{"cluster.auth", "replica links are not built yet"},
	{"cluster.tls", "replica links are not built yet"},
	{"cluster.coordinator", "replica links are not built yet"},
	{"cluster.commit_broadcast_interval", "the VSR timings are constants of the core"},
	{"cluster.prepare_retransmit_interval", "the VSR timings are constants of the core"},
	{"cluster.view_change_retransmit_interval", "the VSR timings are constants of the core"},
	{"cluster.view_change_status_timeout", "the VSR timings are constants of the core"},
	{"cluster.request_start_view_retransmit_interval", "the VSR timings are constants of the core"},
	{"cluster.view_probe_attempts_max", "the VSR timings are constants of the core"},
	{"cluster.repair_retry_interval", "the VSR timings are constants of the core"},
	{"cluster.repair_chunk_max", "the repair bounds are constants of the core"},
	{"cluster.superblock_wedged_fatal_timeout", "the VSR timings are constants of the core"},
	{"message_bus.peer_queue_capacity", "replica links are not built yet"},
	{"message_bus.client_queue_capacity", "client flow control is not built yet"},
	{"message_bus.client_write_stall_timeout", "client flow control is not built yet"},
	{"message_bus.client_request_queue_bytes_max", "client flow control is not built yet"},
	{"sharding.deferred_poll_", "deferred polling is not built yet"},
	{"http.web_ui", "the web UI is not served"},
	{"encryption.", "encryption at rest is not built yet"},
}

// unhonouredWarnings names every key of merged that differs from the
// embedded defaults and that no code honours yet, in key order.
func unhonouredWarnings(merged map[string]any) ([]string, error) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(defaultTOML), toml.Parser()); err != nil {
		return nil, fmt.Errorf("%w: embedded defaults: %w", ErrInvalidConfiguration, err)
	}
	defaults, _ := maps.Flatten(k.Raw(), nil, ".")
	set, _ := maps.Flatten(merged, nil, ".")
	var warnings []string
	for _, key := range sortedKeys(set) {
		for _, u := range unhonoured {
			if strings.HasPrefix(key, u.prefix) && !reflect.DeepEqual(set[key], defaults[key]) {
				warnings = append(warnings, fmt.Sprintf("configuration key %s is accepted but not honoured yet (%s)", key, u.why))
				break
			}
		}
	}
	return warnings, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
