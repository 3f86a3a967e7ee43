// Package crypto holds the CPU-heavy or secret-handling work the core keeps
// outside: argon2id password hashes and personal access tokens. The core only
// ever sees the resulting hashes, so its op log never holds a secret.
package crypto

import (
	"crypto/rand"
	"crypto/subtle"
	"fmt"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id cost parameters of a new hash.
type Params struct {
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint8
	SaltBytes   uint32
	KeyBytes    uint32
}

// ProductionParams follow the OWASP argon2id baseline (19 MiB, 2 passes, 1 lane),
// which is also what the reference server's argon2 defaults produce.
var ProductionParams = Params{MemoryKiB: 19456, Iterations: 2, Parallelism: 1, SaltBytes: 16, KeyBytes: 32}

// TestParams are deliberately cheap; only tests should use them.
var TestParams = Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltBytes: 16, KeyBytes: 32}

// Bounds on parameters, both for new hashes and for parsed ones, so a corrupt
// or hostile stored hash cannot make verification allocate without limit.
const (
	memoryKiBMax   = 1 << 21 // 2 GiB
	iterationsMax  = 64
	saltBytesMin   = 8
	saltBytesMax   = 64
	keyBytesMin    = 16
	keyBytesMax    = 64
	argon2Version  = argon2.Version
	passwordLenMax = 1 << 12 // far above any accepted password; hashing cost is linear
)

// Option adjusts how HashPassword works.
type Option func(*Params)

// WithParams replaces the cost parameters (tests use TestParams).
func WithParams(p Params) Option { return func(dst *Params) { *dst = p } }

func (p Params) validate() error {
	switch {
	case p.Parallelism == 0:
		return fmt.Errorf("argon2id parallelism must be at least 1")
	case p.MemoryKiB < 8*uint32(p.Parallelism) || p.MemoryKiB > memoryKiBMax:
		return fmt.Errorf("argon2id memory %d KiB outside [%d, %d]", p.MemoryKiB, 8*uint32(p.Parallelism), memoryKiBMax)
	case p.Iterations == 0 || p.Iterations > iterationsMax:
		return fmt.Errorf("argon2id iterations %d outside [1, %d]", p.Iterations, iterationsMax)
	case p.SaltBytes < saltBytesMin || p.SaltBytes > saltBytesMax:
		return fmt.Errorf("argon2id salt of %d bytes outside [%d, %d]", p.SaltBytes, saltBytesMin, saltBytesMax)
	case p.KeyBytes < keyBytesMin || p.KeyBytes > keyBytesMax:
		return fmt.Errorf("argon2id key of %d bytes outside [%d, %d]", p.KeyBytes, keyBytesMin, keyBytesMax)
	}
	return nil
}

// HashPassword returns the argon2id hash of password as a PHC string
// ($argon2id$v=19$m=..,t=..,p=..$salt$hash) with a fresh random salt.
func HashPassword(password string, opts ...Option) (string, error) {
	p := ProductionParams
	for _, o := range opts {
		o(&p)
	}
	if err := p.validate(); err != nil {
		return "", err
	}
	if len(password) > passwordLenMax {
		return "", fmt.Errorf("password longer than %d bytes", passwordLenMax)
	}
	salt := make([]byte, p.SaltBytes)
	// crypto/rand.Read never fails on supported platforms (it aborts the process instead).
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Parallelism, p.KeyBytes)
	return encodePHC(p, salt, key), nil
}

// VerifyPassword reports whether password matches the PHC string encoded. The
// error is non-nil only when encoded is not a valid argon2id PHC string.
func VerifyPassword(encoded, password string) (bool, error) {
	h, err := decodePHC(encoded)
	if err != nil {
		return false, err
	}
	if len(password) > passwordLenMax {
		return false, nil
	}
	key := argon2.IDKey([]byte(password), h.salt, h.params.Iterations, h.params.MemoryKiB, h.params.Parallelism, h.params.KeyBytes)
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}

// StandInHash returns the hash of a random password made with the
// parameters of new hashes. A login of a user that does not exist is checked
// against it, so it costs what a real user's check costs and timing does not
// tell which users exist.
func StandInHash(opts ...Option) (string, error) {
	return HashPassword(rand.Text(), opts...)
}
