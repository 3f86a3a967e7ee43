package gcmsiv

// The AES key schedule (FIPS-197 section 5.2), for the assembly CTR path:
// crypto/aes keeps its round keys to itself.

// sbox is the AES S-box, computed once: the multiplicative inverse in
// GF(2^8) followed by the affine map.
var sbox = func() (s [256]byte) {
	rotl := func(x byte, n uint) byte { return x<<n | x>>(8-n) }
	p, q := byte(1), byte(1)
	for {
		// p walks the group by multiplying by 3; q by dividing by 3, so q
		// is p's inverse at each step.
		if p&0x80 != 0 {
			p ^= p<<1 ^ 0x1b
		} else {
			p ^= p << 1
		}
		q ^= q << 1
		q ^= q << 2
		q ^= q << 4
		if q&0x80 != 0 {
			q ^= 0x09
		}
		s[p] = q ^ rotl(q, 1) ^ rotl(q, 2) ^ rotl(q, 3) ^ rotl(q, 4) ^ 0x63
		if p == 1 {
			break
		}
	}
	s[0] = 0x63
	return s
}()

// roundKeysMax is the schedule of AES-256: 15 round keys.
const roundKeysMax = 15

// schedule is an expanded key: rounds+1 round keys of 16 bytes.
type schedule struct {
	rk     [roundKeysMax * 16]byte
	rounds int
}

// expand fills s from a 16- or 32-byte key.
func (s *schedule) expand(key []byte) {
	nk := len(key) / 4
	s.rounds = nk + 6
	words := 4 * (s.rounds + 1)
	copy(s.rk[:], key)
	rcon := byte(1)
	for i := nk; i < words; i++ {
		var t [4]byte
		copy(t[:], s.rk[4*(i-1):4*i])
		switch {
		case i%nk == 0:
			t = [4]byte{sbox[t[1]] ^ rcon, sbox[t[2]], sbox[t[3]], sbox[t[0]]}
			rcon = rcon<<1 ^ (rcon>>7)*0x1b
		case nk > 6 && i%nk == 4:
			t = [4]byte{sbox[t[0]], sbox[t[1]], sbox[t[2]], sbox[t[3]]}
		}
		for j := range 4 {
			s.rk[4*i+j] = s.rk[4*(i-nk)+j] ^ t[j]
		}
	}
}
