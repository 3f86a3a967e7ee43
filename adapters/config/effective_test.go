package config

import (
	"strings"
	"testing"
)

func TestEffectiveTOML(t *testing.T) {
	cfg, _ := mustLoad(t, "IGGY_HTTP_JWT_ENCODING_SECRET=jwt-secret-value", "IGGY_TCP_ADDRESS=127.0.0.1:0")
	shown, err := cfg.EffectiveTOML(nil, SecretsMasked)
	if err != nil {
		t.Fatal(err)
	}
	text := string(shown)
	if strings.Contains(text, "jwt-secret-value") || !strings.Contains(text, "encoding_secret = '******'") ||
		strings.Contains(text, "decoding_secret") || !strings.Contains(text, "127.0.0.1:0") {
		t.Errorf("masked output:\n%s", text)
	}
	file, err := cfg.EffectiveTOML(map[string]string{"tcp.address": "127.0.0.1:40123"}, SecretsOmitted)
	if err != nil {
		t.Fatal(err)
	}
	text = string(file)
	if strings.Contains(text, "encoding_secret") || !strings.Contains(text, "127.0.0.1:40123") {
		t.Errorf("file output:\n%s", text)
	}
	// The rendered file loads back to the same settings.
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", text)
	again, _, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
	if err != nil || again.TCP.Address != "127.0.0.1:40123" || again.HTTP.JWT.EncodingSecret != "" {
		t.Errorf("reload: %v %+v", err, again)
	}
	if _, err := cfg.EffectiveTOML(map[string]string{"nope.key": "x"}, SecretsOmitted); err == nil {
		t.Error("override of a missing table accepted")
	}
}
