package config

import (
	"reflect"
	"testing"
)

// covers CONF-3
func TestInferEnvValue(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{"true", true}, {"FALSE", false}, {"True", true},
		{"42", uint64(42)}, {"-7", int64(-7)}, {"+5", int64(5)}, {"1.5", 1.5},
		{"18446744073709551615", uint64(1<<64 - 1)},
		{"127.0.0.1:8090", "127.0.0.1:8090"}, {"5 s", "5 s"}, {"0x10", "0x10"}, {"1_000", "1_000"},
		{"[]", []any{}},
		{"[GET, POST]", []any{"GET", "POST"}},
		{`[ "a,b" , c ]`, []any{"a,b", "c"}},
		{`["1", 2, true]`, []any{uint64(1), uint64(2), true}},
		{"[https://a.example, https://b.example]", []any{"https://a.example", "https://b.example"}},
	}
	for _, c := range cases {
		if got := inferEnvValue(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("inferEnvValue(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}
