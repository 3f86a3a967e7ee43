package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWithDotEnv(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".env", "# comment\n\nexport IGGY_ROOT_USERNAME=admin\nIGGY_TCP_ADDRESS = \"127.0.0.1:1\"\nIGGY_HTTP_ENABLED=false # off\nIGGY_SYSTEM_PATH=from_file\n")
	env, err := WithDotEnv([]string{"IGGY_SYSTEM_PATH=from_process"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"IGGY_ROOT_USERNAME=admin", "IGGY_TCP_ADDRESS=127.0.0.1:1", "IGGY_HTTP_ENABLED=false"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %q lacks %q", env, want)
		}
	}
	if slices.Contains(env, "IGGY_SYSTEM_PATH=from_file") {
		t.Error(".env overrode a process variable")
	}
	cfg, _, err := Load(LoadOptions{Environ: env, WorkDir: dir})
	if err != nil || cfg.TCP.Address != "127.0.0.1:1" || cfg.System.Path != "from_process" {
		t.Errorf("Load after .env: %v %+v", err, cfg)
	}
}

func TestWithDotEnvPaths(t *testing.T) {
	dir := t.TempDir()
	if env, err := WithDotEnv([]string{"A=b"}, dir); err != nil || len(env) != 1 {
		t.Errorf("missing ./.env: %q %v", env, err)
	}
	missing := filepath.Join(dir, "custom.env")
	if _, err := WithDotEnv([]string{"IGGY_ENV_PATH=" + missing}, dir); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing IGGY_ENV_PATH: %v", err)
	}
	writeFile(t, dir, "custom.env", "IGGY_ROOT_PASSWORD=s3cret-value\nnot a pair\n")
	_, err := WithDotEnv([]string{"IGGY_ENV_PATH=custom.env"}, dir)
	if err == nil || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("bad line: %v", err)
	}
}
