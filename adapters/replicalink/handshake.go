package replicalink

import (
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/replica"
)

// ALPN is the protocol name replica links negotiate under cluster.tls.
const ALPN = "iggy-replica"

// refusal is a handshake that did not link: why, and whether the reason
// is worth a warning (a refused peer) or routine (a peer not up yet).
type refusal struct {
	code   replica.Refusal
	reason string
}

func (r *refusal) Error() string { return r.reason }

func refuse(code replica.Refusal, format string, args ...any) *refusal {
	return &refusal{code: code, reason: fmt.Sprintf(format, args...)}
}

// readHandshakeFrame reads one whole handshake frame (its header checked).
func readHandshakeFrame(r io.Reader) ([]byte, error) {
	var h [replica.HeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("reading a handshake frame: %w", err)
	}
	hd, err := replica.CheckHeader(h[:], replica.HandshakeSizeMax)
	if err != nil {
		return nil, err
	}
	f := make([]byte, hd.Size)
	copy(f, h[:])
	if _, err := io.ReadFull(r, f[replica.HeaderSize:]); err != nil {
		return nil, fmt.Errorf("reading a handshake frame: %w", err)
	}
	return f, nil
}

// ourHello is this node's hello or challenge to peer on link.
func (b *Bus) ourHello(to, link uint8) *replica.Hello {
	h := &replica.Hello{Cluster: b.cfg.Cluster, From: b.cfg.Self, To: to, Link: link, Links: uint8(b.cfg.LinksPerPeer),
		Auth: b.keys != nil, Protocol: b.cfg.Protocol, Shards: b.cfg.Shards,
		Release: b.cfg.Release, StorageFormat: b.cfg.StorageFormat}
	_, _ = rand.Read(h.Nonce[:]) // never fails (crypto/rand)
	return h
}

// judge checks a peer's hello or challenge: the identity (VSR-4), the
// link count (VSR-10), who sends to whom, and that both run cluster.auth
// or neither. from and link are what the preamble (or the dial) said.
func (b *Bus) judge(h *replica.Hello, from, link uint8) *refusal {
	c := &b.cfg
	switch {
	case h.Cluster != c.Cluster:
		return refuse(replica.RefusedIdentity, "cluster id %x%016x differs from ours (cluster.name)", h.Cluster.Hi, h.Cluster.Lo)
	case h.Protocol != c.Protocol:
		return refuse(replica.RefusedIdentity, "protocol %s differs from ours %s", wire.ProtocolVersion(h.Protocol), wire.ProtocolVersion(c.Protocol))
	case h.Release != c.Release:
		return refuse(replica.RefusedIdentity, "release %q differs from ours %q", h.Release, c.Release)
	case h.StorageFormat != c.StorageFormat:
		return refuse(replica.RefusedIdentity, "storage format %q differs from ours %q", h.StorageFormat, c.StorageFormat)
	case int(h.Links) != c.LinksPerPeer:
		return refuse(replica.RefusedLinks, "replica_connections_per_peer %d differs from ours %d; the nodes never link", h.Links, c.LinksPerPeer)
	case h.From != from || h.Link != link || h.To != c.Self:
		return refuse(replica.RefusedRoster, "hello from replica %d link %d to %d, expected from %d link %d to %d", h.From, h.Link, h.To, from, link, c.Self)
	case h.Auth != (b.keys != nil):
		return refuse(replica.RefusedAuth, "cluster.auth enabled on one side only (peer %v, ours %v)", h.Auth, b.keys != nil)
	}
	return nil
}

// binding is the TLS channel binding of a link (nil on plaintext).
func binding(c net.Conn) ([]byte, error) {
	t, ok := c.(*tls.Conn)
	if !ok {
		return nil, nil
	}
	st := t.ConnectionState()
	if st.NegotiatedProtocol != ALPN {
		return nil, fmt.Errorf("TLS without ALPN %s", ALPN)
	}
	return st.ExportKeyingMaterial(tlsExporterLabel, nil, replica.MACSize)
}

// acceptHandshake runs the acceptor's side on a fresh connection: the
// preamble, the peer's hello, our challenge, the peer's finish. It returns
// the slot the link belongs to.
func (b *Bus) acceptHandshake(c net.Conn) (*slot, error) {
	var pre [preambleSize]byte
	if _, err := io.ReadFull(c, pre[:]); err != nil {
		return nil, refuse(replica.RefusedRoster, "no placement preamble: %v", err)
	}
	from, link, err := parsePreamble(pre)
	if err != nil {
		return nil, refuse(replica.RefusedRoster, "%v", err)
	}
	s := b.slot(from, link)
	if s == nil || from > b.cfg.Self {
		return nil, refuse(replica.RefusedRoster, "preamble names replica %d link %d, not a peer that dials us", from, link)
	}
	bind, err := binding(c)
	if err != nil {
		return nil, err
	}
	hello, err := readHandshakeFrame(c)
	if err != nil {
		return nil, err
	}
	h, err := replica.DecodeHello(hello, wire.FrameReplicaHello)
	if err != nil {
		return nil, err
	}
	ours := b.ourHello(from, link)
	if r := b.judge(&h, from, link); r != nil {
		ours.Status, ours.Reason = r.code, r.reason
		_, _ = c.Write(replica.AppendHello(nil, wire.FrameReplicaChallenge, ours)) // tell the peer why, then close
		return nil, r
	}
	chal := replica.AppendHello(nil, wire.FrameReplicaChallenge, ours)
	ours.MAC = b.keys.sign(macLabelChallenge, bind, hello, chal)
	chal = replica.AppendHello(nil, wire.FrameReplicaChallenge, ours)
	if _, err := c.Write(chal); err != nil {
		return nil, fmt.Errorf("writing the challenge: %w", err)
	}
	fin, err := readHandshakeFrame(c)
	if err != nil {
		return nil, refuse(replica.RefusedAuth, "no finish from the peer, which refused our challenge (wrong PSK?): %v", err)
	}
	ff, ft, got, err := replica.DecodeFinish(fin)
	if err != nil {
		return nil, err
	}
	if ff != from || ft != b.cfg.Self || !b.keys.verify(got, macLabelFinish, bind, hello, chal) {
		return nil, refuse(replica.RefusedAuth, "finish MAC does not verify under cluster.auth.shared_secret or previous_shared_secret (wrong PSK)")
	}
	return s, nil
}

// dialHandshake runs the dialer's side to slot s's peer on a connection
// just opened.
func (b *Bus) dialHandshake(c net.Conn, s *slot) error {
	bind, err := binding(c)
	if err != nil {
		return err
	}
	pre := preamble(b.cfg.Self, s.link)
	hello := replica.AppendHello(pre[:], wire.FrameReplicaHello, b.ourHello(s.peer, s.link))
	if _, err := c.Write(hello); err != nil {
		return fmt.Errorf("writing the hello: %w", err)
	}
	hello = hello[preambleSize:]
	chal, err := readHandshakeFrame(c)
	if err != nil {
		return err
	}
	h, err := replica.DecodeHello(chal, wire.FrameReplicaChallenge)
	if err != nil {
		return err
	}
	if h.Status != replica.RefusedNone {
		return refuse(h.Status, "refused by the peer (%s): %s", h.Status, h.Reason)
	}
	if r := b.judge(&h, s.peer, s.link); r != nil {
		return r
	}
	cleared := slices.Clone(chal)
	replica.ClearMAC(cleared)
	if !b.keys.verify(h.MAC, macLabelChallenge, bind, hello, cleared) {
		return refuse(replica.RefusedAuth, "challenge MAC does not verify under cluster.auth.shared_secret or previous_shared_secret (wrong PSK)")
	}
	fin := replica.AppendFinish(nil, b.cfg.Cluster, b.cfg.Self, s.peer, b.keys.sign(macLabelFinish, bind, hello, chal))
	if _, err := c.Write(fin); err != nil {
		return fmt.Errorf("writing the finish: %w", err)
	}
	return nil
}

// withTLS wraps c when cluster.tls is on and completes the TLS handshake
// within the deadline already set on c.
func (b *Bus) withTLS(c net.Conn, dialled string) (net.Conn, error) {
	if b.cfg.TLS == nil {
		return c, nil
	}
	var t *tls.Conn
	if dialled == "" {
		t = tls.Server(c, b.cfg.TLS.Server)
	} else {
		cfg := b.cfg.TLS.Client.Clone()
		if host, _, err := net.SplitHostPort(dialled); err == nil && cfg.ServerName == "" {
			cfg.ServerName = host // verified against the roster ip
		}
		t = tls.Client(c, cfg)
	}
	if err := t.Handshake(); err != nil {
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return t, nil
}

func deadline(c net.Conn, d time.Duration) {
	if d == 0 {
		_ = c.SetDeadline(time.Time{})
		return
	}
	_ = c.SetDeadline(time.Now().Add(d))
}
