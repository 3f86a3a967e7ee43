package config

import (
	"strings"
	"testing"
)

// A key that parses but that no code reads yet warns when set, and only then.
func TestUnhonouredKeysWarnWhenSet(t *testing.T) {
	_, quiet := mustLoad(t)
	for _, w := range quiet {
		if strings.Contains(w, "not honoured") {
			t.Fatalf("defaults warned: %q", w)
		}
	}
	_, warnings := mustLoad(t,
		"IGGY_CLUSTER_VIEW_PROBE_ATTEMPTS_MAX=6",
		"IGGY_MESSAGE_BUS_MAX_BATCH=7",
		"IGGY_HTTP_WEB_UI=true")
	want := []string{"cluster.view_probe_attempts_max", "http.web_ui", "message_bus.max_batch"}
	var got []string
	for _, w := range warnings {
		if strings.Contains(w, "not honoured") {
			got = append(got, w)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want one each for %v", got, want)
	}
	for i, key := range want {
		if !strings.Contains(got[i], "configuration key "+key+" ") {
			t.Errorf("warning %d = %q, want it to name %s", i, got[i], key)
		}
	}
}
