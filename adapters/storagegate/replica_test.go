package storagegate

import (
	"strings"
	"testing"
)

// A data directory started as replica 1 of cluster "a" starts again so,
// and is refused as replica 2 or in cluster "b", untouched.
func TestBindReplicaRefusesAnotherReplicaOrCluster(t *testing.T) {
	dir := t.TempDir()
	if _, err := Check(dir); err != nil {
		t.Fatal(err)
	}
	if err := BindReplica(dir, "a", 1); err != nil {
		t.Fatalf("first bind: %v", err)
	}
	if err := BindReplica(dir, "a", 1); err != nil {
		t.Fatalf("same replica again: %v", err)
	}
	for _, c := range []struct {
		cluster string
		replica uint8
	}{{"a", 2}, {"b", 1}} {
		err := BindReplica(dir, c.cluster, c.replica)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "--replica-id") {
			t.Errorf("cluster %q replica %d: %v, want a refusal naming the path", c.cluster, c.replica, err)
		}
	}
	if _, err := Check(dir); err != nil {
		t.Errorf("the gate refuses a bound directory: %v", err)
	}
}
