package wire

import "unicode"

// NamePrintable reports whether a name a client gives a stream, topic,
// consumer group, user or personal access token holds no control character:
// no C0 control (NUL included), DEL or C1 control, no line or paragraph
// separator (U+2028, U+2029) and no bidirectional formatting character
// (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A..U+202E,
// U+2066..U+2069). Such names print as something else in logs, listings
// and terminals (a right-to-left override reverses what follows it, a
// separator starts a new log line), so they are refused when a name is
// created or renamed.
// s must be valid UTF-8, as every decoded name is.
func NamePrintable(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Cc, unicode.Zl, unicode.Zp, unicode.Bidi_Control) {
			return false
		}
	}
	return true
}
