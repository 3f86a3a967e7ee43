package config

import (
	"strings"
	"testing"
)

// Secret values (config.md §7.3) never appear in errors, warnings or info lines.
func TestSecretsNeverPrinted(t *testing.T) {
	const secret = "31415926535897932384626433832795028841971"
	cases := [][]string{
		{"IGGY_HTTP_JWT_ENCODING_SECRET=" + secret},                                              // a number: type error
		{"IGGY_ENCRYPTION_KEY=" + secret},                                                        // not base64 of 32 bytes
		{"IGGY_ENCRYPTION_PREVIOUS_KEYS=[" + secret + "]"},                                       // list element of the wrong type
		{"IGGY_SYSTEM_ENCRYPTION_KEY=x" + secret},                                                // old name, bad key
		{"IGGY_CLUSTER_AUTH_ENABLED=true", "IGGY_CLUSTER_AUTH_SHARED_SECRET=s" + secret[:20]},    // too short
		{"IGGY_HTTP_JWT_ENCODING_SECRET=a" + secret, "IGGY_HTTP_JWT_DECODING_SECRET=b" + secret}, // warning only
		{"IGGY_ROOT_PASSWORD=" + secret, "IGGY_TCP_ADDRES=" + secret},
	}
	for _, env := range cases {
		var info []string
		_, warnings, err := Load(LoadOptions{Environ: env, WorkDir: t.TempDir(), Info: func(l string) { info = append(info, l) }})
		text := strings.Join(append(append(warnings, info...), errString(err)), "\n")
		if strings.Contains(text, secret[:20]) {
			t.Errorf("%v leaks the secret:\n%s", env, text)
		}
	}
}

func TestAppliedVariablesMasked(t *testing.T) {
	var info []string
	_, _, err := Load(LoadOptions{
		Environ: []string{"IGGY_HTTP_JWT_ENCODING_SECRET=topsecretvalue", "IGGY_TCP_ADDRESS=127.0.0.1:1"},
		WorkDir: t.TempDir(), Info: func(l string) { info = append(info, l) },
	})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(info, "\n")
	if !strings.Contains(joined, "IGGY_HTTP_JWT_ENCODING_SECRET value changed to: ******") ||
		!strings.Contains(joined, "IGGY_TCP_ADDRESS value changed to: 127.0.0.1:1") || strings.Contains(joined, "topsecret") {
		t.Errorf("info = %q", info)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
