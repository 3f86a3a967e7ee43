package httpapi

import "strconv"

// byteUnits are the units of the exact-unit form, largest first; a binary
// unit comes before the decimal one of the same prefix because it is larger.
var byteUnits = []struct {
	name  string
	bytes uint64
}{
	{"EiB", 1 << 60}, {"EB", 1e18}, {"PiB", 1 << 50}, {"PB", 1e15}, {"TiB", 1 << 40}, {"TB", 1e12},
	{"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1 << 10}, {"KB", 1e3},
}

// sizeText is a byte count in exact-unit form (http.md 4.4): the largest
// unit that divides it exactly ("10 KiB", "3 MB"), else bytes ("1234 B").
// The config-file size parser reads every form back to the same count.
func sizeText(n uint64) string {
	for _, u := range byteUnits {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatUint(n/u.bytes, 10) + " " + u.name
		}
	}
	return strconv.FormatUint(n, 10) + " B"
}
