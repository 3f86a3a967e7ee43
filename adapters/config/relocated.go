package config

import (
	"fmt"
	"regexp"
	"strings"
)

// relocation is a key that moved or was removed; setting it stops the boot
// (config.md §6, CONF-10).
type relocation struct {
	old         string // dotted path
	replacement string // what to use instead
	table       bool   // a whole table: any key below it matches too
}

var relocations = []relocation{
	{old: "system.topic.max_size", replacement: "topic option max_topic_size"},
	{old: "system.topic.message_expiry", replacement: "topic option message_expiry"},
	{old: "system.partition.enforce_fsync", replacement: "topic option enforce_fsync"},
	{old: "system.partition.messages_required_to_save", replacement: "topic option messages_required_to_save"},
	{old: "system.partition.size_of_messages_required_to_save", replacement: "topic option size_of_messages_required_to_save"},
	{old: "system.segment.size", replacement: "topic option segment_size"},
	{old: "system.segment.preallocate", replacement: "topic option preallocate_segments"},
	{old: "system.message_deduplication", replacement: "nothing (the feature was removed)", table: true},
	{old: "extra", replacement: "nothing (the caps are compile-time constants)", table: true},
	{old: "consumer_group.session_timeout", replacement: "heartbeat.interval (the session timeout is 1.2 x heartbeat.interval)"},
}

// trustedIssuerUserIDEnv matches the env form of http.jwt.trusted_issuers[n].user_id,
// which CONF-12 replaced with username.
var trustedIssuerUserIDEnv = regexp.MustCompile(`^IGGY_HTTP_JWT_TRUSTED_ISSUERS_[0-9]+_USER_ID$`)

func (r relocation) envName() string {
	return "IGGY_" + strings.ToUpper(strings.ReplaceAll(r.old, ".", "_"))
}

// checkRelocated refuses relocated keys in the file tree or the environment.
// Messages name the old and the new key, never a value.
func checkRelocated(file map[string]any, envNames []string) error {
	var found []string
	for _, r := range relocations {
		if _, ok := lookupPath(file, strings.Split(r.old, ".")); ok {
			found = append(found, fmt.Sprintf("config key %s is no longer supported; use %s", r.old, r.replacement))
		}
	}
	if issuerWithUserID(file) {
		found = append(found, "config key http.jwt.trusted_issuers[].user_id is no longer supported; use username")
	}
	for _, name := range envNames {
		if msg, ok := relocatedEnv(name); ok {
			found = append(found, msg)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInvalidConfiguration, strings.Join(found, "; "))
}

func relocatedEnv(name string) (string, bool) {
	for _, r := range relocations {
		envName := r.envName()
		if name == envName || r.table && strings.HasPrefix(name, envName+"_") {
			return fmt.Sprintf("environment variable %s (config key %s) is no longer supported; use %s", name, r.old, r.replacement), true
		}
	}
	if trustedIssuerUserIDEnv.MatchString(name) {
		newName := strings.TrimSuffix(name, "USER_ID") + "USERNAME"
		return fmt.Sprintf("environment variable %s is no longer supported; use %s", name, newName), true
	}
	return "", false
}

func issuerWithUserID(file map[string]any) bool {
	v, ok := lookupPath(file, []string{"http", "jwt", "trusted_issuers"})
	if !ok {
		return false
	}
	items, _ := v.([]any)
	for _, item := range items {
		if entry, ok := item.(map[string]any); ok {
			if _, has := entry["user_id"]; has {
				return true
			}
		}
	}
	return false
}

// lookupPath finds a nested key in a tree of tables.
func lookupPath(tree map[string]any, path []string) (any, bool) {
	var cur any = tree
	for _, key := range path {
		table, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = table[key]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}
