//go:build debug

package config

import (
	"strings"
	"testing"
)

// Run with: go test -tags debug ./adapters/config/
//
// covers CONF-8
func TestUnknownVariableFatalInDebugBuild(t *testing.T) {
	_, _, err := Load(LoadOptions{Environ: []string{"IGGY_TCP_ADRESS=x"}, WorkDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "IGGY_TCP_ADRESS") {
		t.Fatalf("err = %v", err)
	}
	if _, _, err := Load(LoadOptions{Environ: []string{"IGGY_ROOT_USERNAME=x", "IGGY_ENV_PATH=y"}, WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("non-config variables stopped the boot: %v", err)
	}
}
