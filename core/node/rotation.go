package node

import (
	"slices"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// rotationEveryTicks paces the metadata primary's sweep of stream key
// wraps: once a second.
const rotationEveryTicks = 100

// rotateKeys is the two-phase server key rotation (ENC-19..25), run by the
// metadata primary: a stream whose key no wrap under the current server
// key holds gets one (phase 1: `key` new, `previous_keys` old), and wraps
// under a fingerprint in retired_kek_fingerprints are dropped (phase 2);
// no message is ever re-encrypted, as the stream key does not change. One
// sweep's changes commit before the next sweep looks.
func (n *Node) rotateKeys() {
	enc := n.cfg.Encryption
	if !enc.hasKey() || n.now.Ticks%rotationEveryTicks != 0 || n.applied < n.rotationOp ||
		n.mg.Replica().Full() || (n.cfg.clustered() && !n.leading()) {
		return
	}
	changed, stuck := 0, 0
	for _, s := range n.meta.Streams() {
		opts, ok := n.rewrapped(s)
		switch {
		case !ok:
			stuck++
		case opts != nil:
			n.rotationOp = n.propose(vsr.Prepare{
				Kind: vsr.KindCommand, Timestamp: n.now.NowMicros,
				Body: metadata.Encode(&metadata.SetStreamKeyOptions{Stream: s.ID, CreatedOp: s.CreatedOp, Options: opts}),
			})
			changed++
		}
	}
	n.logRotation(changed, stuck)
}

// logRotation logs each sweep that rewraps (ENC-25) and, once, that every
// set is settled.
func (n *Node) logRotation(changed, stuck int) {
	switch {
	case changed > 0:
		n.logf("key rotation: rewrapping %d encrypted streams under [%s]", changed, n.cfg.Encryption.fingerprints())
		n.rotationSettled = false
	case stuck == 0 && !n.rotationSettled:
		n.rotationSettled = true
		n.logf("key rotation: every encrypted stream's wraps are settled under [%s]", n.cfg.Encryption.fingerprints())
	}
}

// rewrapped is the options block stream s should have, or nil when it has
// it already (or is plaintext); ok is false, and the stream logged, when
// it cannot be rewrapped: no configured key opens it, or it holds the most
// wraps allowed and none is retired (ENC-27).
func (n *Node) rewrapped(s *metadata.Stream) (opts []byte, ok bool) {
	wraps, encrypted := streamWraps(s)
	if !encrypted {
		return nil, true
	}
	enc := n.cfg.Encryption
	key, opened := streamkey.Open(enc.KEKs, wraps)
	if !opened {
		n.logf("key rotation: cannot rewrap stream %d (%s): no configured key opens it", s.ID, s.Name)
		return nil, false
	}
	want := dropRetired(wraps, enc.RetiredFingerprints)
	current := enc.KEKs[0]
	if !slices.ContainsFunc(want, func(w streamkey.Wrap) bool { return w.KEKFingerprint == current.Fingerprint }) {
		if len(want) >= streamkey.WrapsMax {
			n.logf("key rotation: cannot rewrap stream %d (%s): it holds %d wraps; retire an old fingerprint first", s.ID, s.Name, len(want))
			return nil, false
		}
		want = append(want, current.Wrap(key, n.nextNonce()))
	}
	if len(want) == len(wraps) && len(dropRetired(wraps, enc.RetiredFingerprints)) == len(wraps) {
		return nil, true
	}
	return withWraps(s.Options, want), true
}

// dropRetired is wraps without those under a retired key, unless that
// would leave none: a node never drops a stream's last wrap.
func dropRetired(wraps []streamkey.Wrap, retired []string) []streamkey.Wrap {
	kept := make([]streamkey.Wrap, 0, len(wraps)+1)
	for _, w := range wraps {
		if !slices.Contains(retired, w.KEKFingerprint) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return append(kept, wraps...)
	}
	return kept
}

// withWraps is the options block with its wraps entry replaced.
func withWraps(block []byte, wraps []streamkey.Wrap) []byte {
	opts, _ := wire.DecodeOptions(block)
	out := make(wire.Options, 0, len(opts))
	for _, o := range opts {
		if o.Key != optKeyWraps {
			out = append(out, o)
		}
	}
	out = append(out, wire.Option{Key: optKeyWraps, Kind: wire.KindRaw, Value: streamkey.EncodeWraps(wraps)})
	return encodeOptions(out)
}
