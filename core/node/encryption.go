package node

import (
	"strings"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/wire"
)

// Encryption is the server key material of [encryption], as the adapter
// derived it (ENC-2): no key at all leaves KEKs empty.
type Encryption struct {
	// Enabled: a stream created without a key gets one the server
	// generates (ENC-8).
	Enabled bool
	// KEKs holds the key-encryption key of `key` first, then those of
	// `previous_keys` (at most two, ENC-26).
	KEKs []streamkey.KEK
	// RetiredFingerprints lists the server keys whose wraps the primary
	// drops (ENC-22).
	RetiredFingerprints []string
}

// hasKey says whether a server key is configured.
func (e Encryption) hasKey() bool { return len(e.KEKs) > 0 }

// fingerprints lists the fingerprints of the configured server keys.
func (e Encryption) fingerprints() string {
	fps := make([]string, len(e.KEKs))
	for i, k := range e.KEKs {
		fps[i] = k.Fingerprint
	}
	return strings.Join(fps, ",")
}

// Stream options the node keeps for an encrypted stream (ENC-3, ENC-13,
// ENC-14). The wraps entry is internal: no read path shows it (ENC-12).
const (
	optKeyWraps  = "encryption_key_wraps"
	sourceStream = "stream"
	sourceServer = "server"
	sourceNone   = "none"
)

// streamKeyOf is what a create request leaves to the node: the client's
// key, or none.
func clientStreamKey(secret wire.Options) ([]byte, bool) {
	o, ok := secret.Get(wire.OptEncryptionKey)
	return o.Value, ok
}

// newStreamKeyOptions decides a new stream's encryption (ENC-6..11): the
// client's key if it sent one (4106 without a server key), a generated
// key when encryption is enabled, else none. It returns the option entries
// to store: the key's source and fingerprint and its wraps, under the
// current key and, during a rotation's first phase, the previous ones too
// (ENC-20).
func (n *Node) newStreamKeyOptions(secret wire.Options) (wire.Options, wire.Code) {
	enc := n.cfg.Encryption
	key, given := clientStreamKey(secret)
	switch {
	case given && !enc.hasKey():
		return nil, wire.StreamEncryptionUnavailable
	case given:
	case enc.Enabled && enc.hasKey():
		key = make([]byte, streamkey.KeyBytes)
		n.crypto.NewKey(key)
	default:
		return nil, wire.OK
	}
	source := sourceServer
	if given {
		source = sourceStream
	}
	wraps := make([]streamkey.Wrap, 0, streamkey.WrapsMax)
	for _, k := range enc.KEKs[:min(len(enc.KEKs), streamkey.WrapsMax)] {
		wraps = append(wraps, k.Wrap(key, n.nextNonce()))
	}
	return wire.Options{
		{Key: wire.OptEncryptionKeySource, Kind: wire.KindString, Value: []byte(source)},
		{Key: wire.OptEncryptionKeyFingerprint, Kind: wire.KindString, Value: []byte(streamkey.Fingerprint(key))},
		{Key: optKeyWraps, Kind: wire.KindRaw, Value: streamkey.EncodeWraps(wraps)},
	}, wire.OK
}

// streamWraps returns the wraps of an encrypted stream; ok is false for a
// plaintext one.
func streamWraps(s *metadata.Stream) (wraps []streamkey.Wrap, ok bool) {
	opts, _ := wire.DecodeOptions(s.Options)
	o, found := opts.Get(optKeyWraps)
	if !found {
		return nil, false
	}
	ws, err := streamkey.DecodeWraps(o.Value)
	return ws, err == nil
}

// streamCipherKey names one incarnation of a stream (ids are reused).
type streamCipherKey struct {
	stream    uint32
	createdOp uint64
}

// streamCipher is the data cipher of stream s: nil for a plaintext stream,
// CannotDecryptData when no configured key opens any of its wraps.
func (n *Node) streamCipher(s *metadata.Stream) (*streamkey.Data, wire.Code) {
	ck := streamCipherKey{s.ID, s.CreatedOp}
	if d, ok := n.ciphers[ck]; ok {
		return d, wire.OK
	}
	wraps, encrypted := streamWraps(s)
	if !encrypted {
		return nil, wire.OK
	}
	key, ok := streamkey.Open(n.cfg.Encryption.KEKs, wraps)
	if !ok {
		return nil, wire.CannotDecryptData
	}
	d, err := streamkey.NewData(key)
	if err != nil {
		return nil, wire.CannotDecryptData
	}
	n.ciphers[ck] = &d
	return &d, wire.OK
}

// partCipher is the data cipher of partition k's stream on this shard: a
// host has the one the front handed it with the partition.
func (n *Node) partCipher(k partKey) (*streamkey.Data, wire.Code) {
	if d, ok := n.hostCiphers[k]; ok {
		return d, wire.OK
	}
	if n.meta == nil {
		return nil, wire.OK // a host, handed no cipher with k: plaintext
	}
	s, ok := n.meta.Stream(wire.NumericID(k.stream))
	if !ok {
		return nil, wire.OK // deleted meanwhile; the append or poll fails on its own
	}
	return n.streamCipher(s)
}

// nextNonce draws a nonce: the node's random base with a counter added, so
// a node draws from its random source once (a GCM-SIV nonce that repeats
// reveals only that two equal values under equal message ids are equal).
func (n *Node) nextNonce() [streamkey.NonceBytes]byte {
	if !n.nonceSeeded {
		n.crypto.Random(n.nonceBase[:])
		n.nonceSeeded = true
	}
	n.nonceCount++
	nonce := n.nonceBase
	c := n.nonceCount
	for i := range 8 {
		nonce[i] ^= byte(c >> (8 * i))
	}
	return nonce
}

// sealBatch seals a checked record for partition k when its stream is
// encrypted (ENC-4), on the shard that owns k.
func (n *Node) sealBatch(k partKey, b []byte) ([]byte, wire.Code) {
	d, code := n.partCipher(k)
	if code != wire.OK || d == nil {
		return b, code
	}
	return d.SealRecord(b, n.nextNonce)
}

// openRecords opens the records a poll of partition k read.
func (n *Node) openRecords(k partKey, recs [][]byte) ([][]byte, wire.Code) {
	d, code := n.partCipher(k)
	if code != wire.OK || d == nil {
		return recs, code
	}
	out := make([][]byte, len(recs))
	for i, r := range recs {
		if out[i], code = d.OpenRecord(r); code != wire.OK {
			return nil, code
		}
	}
	return out, wire.OK
}

// streamOptionsView is what a read route shows of a stream's options:
// never the wraps (ENC-12), and the fingerprints of the server keys that
// wrap the key (ENC-15); a plaintext stream reports source none once the
// server has a key (without one, a stream's options stay as the reference
// release sends them: none).
func (n *Node) streamOptionsView(s *metadata.Stream) wire.Options {
	opts, _ := wire.DecodeOptions(s.Options)
	wraps, encrypted := streamWraps(s)
	view := make(wire.Options, 0, len(opts)+1)
	for _, o := range opts {
		if o.Key != optKeyWraps {
			view = append(view, o)
		}
	}
	switch {
	case encrypted:
		fps := make([]string, len(wraps))
		for i, w := range wraps {
			fps[i] = w.KEKFingerprint
		}
		view = append(view, wire.Option{Key: wire.OptEncryptionKEKFingerprint, Kind: wire.KindString, Value: []byte(strings.Join(fps, ","))})
	case n.cfg.Encryption.hasKey():
		view = append(view, wire.Option{Key: wire.OptEncryptionKeySource, Kind: wire.KindString, Value: []byte(sourceNone)})
	}
	return view.Sorted()
}

// noteStreamKey tells, on a replica set's node, when a stream it applies
// (created, or rewrapped) holds a key none of its keys opens (ENC-18): it
// serves the stream once a wrap it can open commits.
func (n *Node) noteStreamKey(s *metadata.Stream) {
	if _, encrypted := streamWraps(s); !encrypted {
		return
	}
	ck := streamCipherKey{s.ID, s.CreatedOp}
	_, code := n.streamCipher(s)
	switch {
	case code != wire.OK:
		n.unopened[ck] = true
		n.logf("%s", n.unopenable(s))
	case n.unopened[ck]:
		delete(n.unopened, ck)
		n.logf("the key of encrypted stream %d (%s) opens now: a wrap under [%s] committed", s.ID, s.Name, n.cfg.Encryption.fingerprints())
	}
}

// unopenable says why stream s's key opens under none of the node's keys,
// naming the stream and both sets of fingerprints.
func (n *Node) unopenable(s *metadata.Stream) string {
	wraps, _ := streamWraps(s)
	fps := make([]string, len(wraps))
	for i, w := range wraps {
		fps[i] = w.KEKFingerprint
	}
	stream := "stream " + itoa(uint64(s.ID)) + " (" + s.Name + ")"
	if !n.cfg.Encryption.hasKey() {
		return "encrypted " + stream + " exists but no encryption.key is configured; it is wrapped under [" + strings.Join(fps, ",") + "]"
	}
	return "no configured key opens the key of encrypted " + stream + ": it is wrapped under [" +
		strings.Join(fps, ",") + "], the keys configured are [" + n.cfg.Encryption.fingerprints() + "]"
}

// checkStreamKeys opens every stored stream key at boot (ENC-16, ENC-17):
// a stream no configured key opens stops a standalone node, naming the
// stream and both sets of fingerprints. A replica set's node logs the same
// and starts, as its metadata may trail the cluster's (ENC-18): polls and
// sends of that stream fail with CannotDecryptData until a wrap it can open
// commits. It reports whether the boot may go on.
func (n *Node) checkStreamKeys() bool {
	if n.cfg.clustered() {
		return true // noteStreamKey, at apply
	}
	for _, s := range n.meta.Streams() {
		if _, encrypted := streamWraps(s); !encrypted {
			continue
		}
		if _, code := n.streamCipher(s); code != wire.OK {
			n.fatal("%s", n.unopenable(s))
			return false
		}
	}
	return true
}
