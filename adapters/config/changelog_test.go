package config

import (
	"strings"
	"testing"
)

// covers MCL-31
func TestChangeLogCapacityRange(t *testing.T) {
	for _, c := range []struct {
		env string
		ok  bool
	}{
		{"IGGY_METADATA_CHANGE_LOG_RESOURCE_CAPACITY=0", false},
		{"IGGY_METADATA_CHANGE_LOG_RESOURCE_CAPACITY=1048577", false},
		{"IGGY_METADATA_CHANGE_LOG_ACTIVITY_CAPACITY=0", false},
		{"IGGY_METADATA_CHANGE_LOG_ACTIVITY_CAPACITY=1048577", false},
		{"IGGY_METADATA_CHANGE_LOG_RESOURCE_CAPACITY=1", true},
		{"IGGY_METADATA_CHANGE_LOG_ACTIVITY_CAPACITY=1048576", true},
	} {
		_, _, err := load(t, c.env)
		if c.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "change_log_")) {
			t.Errorf("%s: err = %v", c.env, err)
		}
	}
}
