package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The revocations file: a text image of the revocations, rewritten whole
// on every change (write a temporary file, fsync it, rename it over the
// old one, fsync the directory), so a crash leaves the old image or the
// new one, never a mix. Its lines:
//
//	iggy-http-revocations 1
//	cut <unix seconds>               (0: no cut)
//	<expiry unix seconds> <key>      (one per entry, sorted by key)
//	crc32c <8 hex digits>            (of every byte before this line)
const (
	revocationsFile  = "http_revocations"
	revocationsMagic = "iggy-http-revocations 1"
	// revocationKeyBytesMax bounds a key: a prefix and at most 64 characters.
	revocationKeyBytesMax = 80
	// revocationLineBytesMax bounds an entry line: 20 digits, a space, a key, a newline.
	revocationLineBytesMax = 20 + 1 + revocationKeyBytesMax + 1
	// revocationsFileBytesMax bounds the file read at start: the entries
	// plus the three other lines.
	revocationsFileBytesMax = (revokedMax + 3) * revocationLineBytesMax
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// revocationsImage is what the file holds.
type revocationsImage struct {
	cut     int64 // self-issued tokens issued at or before this second are refused; 0 none
	entries []expiryEntry
}

// validRevocationKey: printable ASCII without spaces, so a key is one field
// of its line.
func validRevocationKey(k string) bool {
	if len(k) == 0 || len(k) > revocationKeyBytesMax {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] > '~' {
			return false
		}
	}
	return true
}

// ceilUnix is t in whole seconds, rounded up, so an entry read back never
// expires before the one written.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

func encodeRevocations(img revocationsImage) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\ncut %d\n", revocationsMagic, img.cut)
	for _, e := range img.entries {
		fmt.Fprintf(&b, "%d %s\n", ceilUnix(e.exp), e.key)
	}
	fmt.Fprintf(&b, "crc32c %08x\n", crc32.Checksum(b.Bytes(), crc32c))
	return b.Bytes()
}

// errBadRevocations: the file is not an image this build wrote.
var errBadRevocations = errors.New("not a revocations file of this format")

func decodeRevocations(data []byte) (revocationsImage, error) {
	var img revocationsImage
	body, sum, ok := splitChecksum(data)
	if !ok || crc32.Checksum(body, crc32c) != sum {
		return img, fmt.Errorf("%w: checksum", errBadRevocations)
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if len(lines) < 2 || lines[0] != revocationsMagic || len(lines)-2 > revokedMax {
		return img, fmt.Errorf("%w: header", errBadRevocations)
	}
	cut, ok := strings.CutPrefix(lines[1], "cut ")
	var err error
	if img.cut, err = strconv.ParseInt(cut, 10, 64); !ok || err != nil || img.cut < 0 {
		return img, fmt.Errorf("%w: cut line", errBadRevocations)
	}
	img.entries = make([]expiryEntry, 0, len(lines)-2)
	for i, line := range lines[2:] {
		exp, key, ok := strings.Cut(line, " ")
		sec, err := strconv.ParseInt(exp, 10, 64)
		if !ok || err != nil || sec <= 0 || !validRevocationKey(key) {
			return img, fmt.Errorf("%w: entry %d", errBadRevocations, i+1)
		}
		img.entries = append(img.entries, expiryEntry{key: key, exp: time.Unix(sec, 0)})
	}
	return img, nil
}

// splitChecksum separates the trailer line from what it sums.
func splitChecksum(data []byte) (body []byte, sum uint32, ok bool) {
	trimmed := bytes.TrimSuffix(data, []byte("\n"))
	i := bytes.LastIndexByte(trimmed, '\n')
	if i < 0 || len(trimmed) == len(data) {
		return nil, 0, false
	}
	hex, found := strings.CutPrefix(string(trimmed[i+1:]), "crc32c ")
	v, err := strconv.ParseUint(hex, 16, 32)
	if !found || err != nil || len(hex) != 8 {
		return nil, 0, false
	}
	return data[:i+1], uint32(v), true
}

// readRevocations loads the image under dir; a missing file is empty.
func readRevocations(dir string) (revocationsImage, error) {
	path := filepath.Join(dir, revocationsFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return revocationsImage{}, nil
	}
	if err != nil {
		return revocationsImage{}, fmt.Errorf("http revocations: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, revocationsFileBytesMax+1))
	if err != nil {
		return revocationsImage{}, fmt.Errorf("http revocations: reading %s: %w", path, err)
	}
	if len(data) > revocationsFileBytesMax {
		return revocationsImage{}, fmt.Errorf("http revocations: %s is larger than %d bytes", path, revocationsFileBytesMax)
	}
	img, err := decodeRevocations(data)
	if err != nil {
		return revocationsImage{}, fmt.Errorf("http revocations: %s: %w; delete it to start without "+
			"the remembered logouts (logged-out tokens are then valid until they expire)", path, err)
	}
	return img, nil
}

// writeRevocations replaces the image under dir atomically and durably.
func writeRevocations(dir string, img revocationsImage) error {
	path := filepath.Join(dir, revocationsFile)
	tmp := path + ".tmp"
	if err := writeSynced(tmp, encodeRevocations(img)); err != nil {
		return fmt.Errorf("http revocations: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("http revocations: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("http revocations: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("http revocations: syncing %s: %w", dir, err)
	}
	return nil
}

// writeSynced writes data to a fresh file at path and fsyncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
