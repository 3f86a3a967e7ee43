package crypto

import (
	"encoding/hex"
	"strings"
	"testing"
)

func TestHashPasswordRoundTrip(t *testing.T) {
	enc, err := HashPassword("secret-pass", WithParams(TestParams))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enc, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("unexpected PHC prefix: %s", enc)
	}
	ok, err := VerifyPassword(enc, "secret-pass")
	if err != nil || !ok {
		t.Fatalf("verify own hash: ok=%v err=%v", ok, err)
	}
	ok, err = VerifyPassword(enc, "secret-pasS")
	if err != nil || ok {
		t.Fatalf("wrong password accepted: ok=%v err=%v", ok, err)
	}
}

func TestHashPasswordSaltsDiffer(t *testing.T) {
	a, _ := HashPassword("same", WithParams(TestParams))
	b, _ := HashPassword("same", WithParams(TestParams))
	if a == b {
		t.Fatal("two hashes of one password are equal: salt is not random")
	}
}

func TestProductionParamsEncoding(t *testing.T) {
	enc, err := HashPassword("root-password")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(enc, "$")
	if parts[3] != "m=19456,t=2,p=1" || len(parts[4]) != 22 || len(parts[5]) != 43 {
		t.Fatalf("unexpected production PHC string %s", enc)
	}
}

// A known-answer vector of the argon2 reference implementation (argon2id,
// v=19, t=2, m=64 KiB, p=1, password "password", salt "somesalt", 24-byte tag),
// written as a PHC string so VerifyPassword must parse another key length.
func TestVerifyKnownVector(t *testing.T) {
	tag, _ := hex.DecodeString("068d62b26455936aa6ebe60060b0a65870dbfa3ddf8d41f7")
	enc := "$argon2id$v=19$m=64,t=2,p=1$" + phcB64.EncodeToString([]byte("somesalt")) + "$" + phcB64.EncodeToString(tag)
	ok, err := VerifyPassword(enc, "password")
	if err != nil || !ok {
		t.Fatalf("reference vector rejected: ok=%v err=%v", ok, err)
	}
}

func TestVerifyRejectsMalformed(t *testing.T) {
	good, _ := HashPassword("pw", WithParams(TestParams))
	parts := strings.Split(good, "$")
	bad := []string{
		"",
		"plain",
		strings.Replace(good, "argon2id", "argon2i", 1),
		strings.Replace(good, "v=19", "v=16", 1),
		strings.Replace(good, parts[3], "t=1,m=64,p=1", 1),
		strings.Replace(good, parts[3], "m=64,t=1", 1),
		strings.Replace(good, parts[3], "m=99999999,t=1,p=1", 1),
		strings.Replace(good, parts[3], "m=64,t=0,p=1", 1),
		strings.Replace(good, parts[3], "m=64,t=1,p=0", 1),
		strings.Replace(good, parts[3], "m=64,t=1,p=300", 1),
		strings.Replace(good, parts[4], "!!", 1),
		strings.Replace(good, parts[4], "c2FsdA", 1), // 4-byte salt
		strings.Replace(good, parts[5], "", 1),
		good + "$extra",
		strings.Repeat("$", phcLenMax+1),
	}
	for _, s := range bad {
		if ok, err := VerifyPassword(s, "pw"); err == nil || ok {
			t.Errorf("malformed hash %q accepted: ok=%v err=%v", s, ok, err)
		}
	}
}

func TestHashPasswordRejectsBadParams(t *testing.T) {
	bad := TestParams
	bad.SaltBytes = 4
	if _, err := HashPassword("pw", WithParams(bad)); err == nil {
		t.Fatal("salt below the minimum accepted")
	}
}

func FuzzVerifyPassword(f *testing.F) {
	good, _ := HashPassword("pw", WithParams(TestParams))
	f.Add(good, "pw")
	f.Add("$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAA", "x")
	f.Fuzz(func(t *testing.T, enc, pw string) {
		if h, err := decodePHC(enc); err == nil && h.params.MemoryKiB > 1<<12 {
			t.Skip("valid but expensive parameters")
		}
		_, _ = VerifyPassword(enc, pw)
	})
}

// The stand-in hash that logins of unknown users are checked against has
// the cost of a real user's: same parameters, salt and key sizes (issue 11
// item 5: the old stand-in's 16 KiB made unknown users answer 40x faster).
func TestStandInHashCostsWhatARealHashCosts(t *testing.T) {
	for _, p := range []Params{ProductionParams, TestParams} {
		real, err := HashPassword("a-real-password", WithParams(p))
		if err != nil {
			t.Fatal(err)
		}
		standIn, err := StandInHash(WithParams(p))
		if err != nil {
			t.Fatal(err)
		}
		r, err := decodePHC(real)
		if err != nil {
			t.Fatal(err)
		}
		s, err := decodePHC(standIn)
		if err != nil {
			t.Fatal(err)
		}
		if s.params.MemoryKiB != r.params.MemoryKiB || s.params.Iterations != r.params.Iterations ||
			s.params.Parallelism != r.params.Parallelism || len(s.salt) != len(r.salt) || len(s.key) != len(r.key) {
			t.Fatalf("stand-in %s, real %s: parameters differ", standIn, real)
		}
	}
}
