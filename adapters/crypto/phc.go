package crypto

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// PHC strings carry salt and hash in standard base64 without padding.
var phcB64 = base64.RawStdEncoding

// phcLenMax bounds the parsed string; the largest valid one is far shorter.
const phcLenMax = 512

type phcHash struct {
	params Params
	salt   []byte
	key    []byte
}

func encodePHC(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2Version, p.MemoryKiB, p.Iterations, p.Parallelism,
		phcB64.EncodeToString(salt), phcB64.EncodeToString(key))
}

// decodePHC parses "$argon2id$v=19$m=M,t=T,p=P$salt$hash" strictly: other
// algorithms, versions or parameter orders are errors.
func decodePHC(s string) (phcHash, error) {
	var h phcHash
	if len(s) > phcLenMax {
		return h, fmt.Errorf("password hash longer than %d bytes", phcLenMax)
	}
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" {
		return h, fmt.Errorf("password hash is not a PHC string")
	}
	if parts[1] != "argon2id" {
		return h, fmt.Errorf("password hash algorithm %q is not argon2id", parts[1])
	}
	if parts[2] != "v="+strconv.Itoa(argon2Version) {
		return h, fmt.Errorf("password hash version %q is not v=%d", parts[2], argon2Version)
	}
	if err := parseParams(parts[3], &h.params); err != nil {
		return h, err
	}
	var err error
	if h.salt, err = phcB64.DecodeString(parts[4]); err != nil {
		return h, fmt.Errorf("password hash salt: %w", err)
	}
	if h.key, err = phcB64.DecodeString(parts[5]); err != nil {
		return h, fmt.Errorf("password hash digest: %w", err)
	}
	h.params.SaltBytes = uint32(len(h.salt))
	h.params.KeyBytes = uint32(len(h.key))
	if err := h.params.validate(); err != nil {
		return h, fmt.Errorf("password hash parameters: %w", err)
	}
	return h, nil
}

func parseParams(s string, p *Params) error {
	fields := strings.Split(s, ",")
	if len(fields) != 3 {
		return fmt.Errorf("password hash parameters %q are not m=,t=,p=", s)
	}
	m, errM := parseField(fields[0], "m=", 32)
	t, errT := parseField(fields[1], "t=", 32)
	par, errP := parseField(fields[2], "p=", 8)
	for _, err := range []error{errM, errT, errP} {
		if err != nil {
			return err
		}
	}
	p.MemoryKiB, p.Iterations, p.Parallelism = uint32(m), uint32(t), uint8(par)
	return nil
}

func parseField(field, prefix string, bits int) (uint64, error) {
	digits, ok := strings.CutPrefix(field, prefix)
	if !ok {
		return 0, fmt.Errorf("password hash parameter %q does not start with %q", field, prefix)
	}
	v, err := strconv.ParseUint(digits, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("password hash parameter %q: %w", field, err)
	}
	return v, nil
}
