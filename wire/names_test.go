package wire

import "testing"

// issue 11 item 8: names may not hold NUL, control or bidi override characters.
func TestNamePrintable(t *testing.T) {
	for _, s := range []string{"orders", "événements", "日本語", "a b", "emoji-🙂", "שלום"} {
		if !NamePrintable(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"a\x00b", "\x01", "tab\there", "new\nline", "del\x7f", "c1\u0085", "c1\u009f",
		"evil\u202egnp.exe", "\u202a", "\u2066x", "\u2069", "\u200e", "\u200f", "\u061c", "line\u2028break", "\u2029"} {
		if NamePrintable(s) {
			t.Errorf("%q accepted", s)
		}
	}
}
