package wire

import (
	"bytes"
	"encoding/binary"
)

// OptionScope names the resource kind whose option catalog applies
// (protocol-data.md 1.4: the DescribeOptions scope byte).
type OptionScope uint8

const (
	ScopeTopic  OptionScope = 1
	ScopeStream OptionScope = 2
	ScopeUser   OptionScope = 3
)

// optionParser checks one client value and returns it in the key's canonical
// kind. absent reports the key's "use the default" sentinel (for example
// message_expiry 0), which admission treats as if the key had not been sent.
type optionParser func(kind ValueKind, value []byte) (canonical []byte, absent, ok bool)

// OptionSpec is one catalog entry. The five flags are the ones the target
// release lists for each key (RES-3); only Updatable, ReadOnly and Secret
// change what admission does.
type OptionSpec struct {
	Key         string
	Kind        ValueKind // canonical kind
	Default     []byte    // canonical encoding; nil = no default, no derived entry
	Description string
	Updatable   bool
	Resettable  bool
	Secret      bool // never returned by a read path
	ReadOnly    bool // reported by the server, refused from clients (4105)
	Critical    bool
	parse       optionParser
}

// Catalog is the option catalog of one scope, in DescribeOptions order.
type Catalog struct {
	Scope OptionScope
	Specs []OptionSpec
}

// CatalogFor returns the catalog of scope, or 3 InvalidCommand for any other
// scope byte (protocol-data.md 1.4).
func CatalogFor(scope OptionScope) (*Catalog, Code) {
	switch scope {
	case ScopeTopic:
		return TopicCatalog, OK
	case ScopeStream:
		return StreamCatalog, OK
	case ScopeUser:
		return UserCatalog, OK
	}
	return nil, InvalidCommand
}

// Spec returns the entry for key.
func (c *Catalog) Spec(key string) (*OptionSpec, bool) {
	for i := range c.Specs {
		if c.Specs[i].Key == key {
			return &c.Specs[i], true
		}
	}
	return nil, false
}

// AdmittedOptions is a create request's block after admission (RES-14):
// Explicit holds the keys the client sent, re-encoded in their canonical kinds;
// Derived holds the default of every other key that has one; Secret holds
// secret keys the client sent (a stream's encryption_key), which the caller
// must keep out of every reply and read path (ENC-12). All three are sorted.
type AdmittedOptions struct {
	Explicit Options
	Derived  Options
	Secret   Options
}

// AdmitCreate checks a create request's block against the catalog: 4041 for
// a key outside it, 4105 for a read-only key, 4042 for a bad value, and 3 or
// 4043 for a block that breaks the block rules. Sentinel values (0 = server
// default) count as absent, so their key lands in Derived with the default.
func (c *Catalog) AdmitCreate(block Options) (AdmittedOptions, Code) {
	if code := block.Check(); code != OK {
		return AdmittedOptions{}, code
	}
	var a AdmittedOptions
	for _, e := range block {
		spec, ok := c.Spec(e.Key)
		if !ok {
			return AdmittedOptions{}, UnsupportedOptionKey
		}
		if spec.ReadOnly {
			return AdmittedOptions{}, ReadOnlyOption
		}
		canonical, absent, ok := spec.parse(e.Kind, e.Value)
		if !ok {
			return AdmittedOptions{}, InvalidOptionValue
		}
		if absent {
			continue
		}
		entry := Option{Key: spec.Key, Kind: spec.Kind, Value: canonical}
		if spec.Secret {
			a.Secret = append(a.Secret, entry)
		} else {
			a.Explicit = append(a.Explicit, entry)
		}
	}
	for _, spec := range c.Specs {
		_, sent := a.Explicit.Get(spec.Key)
		if !sent && spec.Default != nil {
			a.Derived = append(a.Derived, Option{Key: spec.Key, Kind: spec.Kind,
				Value: bytes.Clone(spec.Default)})
		}
	}
	a.Explicit, a.Derived, a.Secret = a.Explicit.Sorted(), a.Derived.Sorted(), a.Secret.Sorted()
	return a, OK
}

// AdmitUpdate checks an update request's block: 4041 for a key outside the
// catalog, 4105 for a read-only key, 4103 OptionNotUpdatable for a catalog key
// that is fixed at create (the target release, RES-10; the snapshot said
// 4041), 4042 for a bad value. The patch keeps the client's kinds and bytes
// verbatim (protocol-data.md 1.3), sorted by key.
func (c *Catalog) AdmitUpdate(block Options) (Options, Code) {
	if code := block.Check(); code != OK {
		return nil, code
	}
	patch := make(Options, 0, len(block))
	for _, e := range block {
		spec, ok := c.Spec(e.Key)
		switch {
		case !ok:
			return nil, UnsupportedOptionKey
		case spec.ReadOnly:
			return nil, ReadOnlyOption
		case !spec.Updatable:
			return nil, OptionNotUpdatable
		}
		if _, _, ok := spec.parse(e.Kind, e.Value); !ok {
			return nil, InvalidOptionValue
		}
		patch = append(patch, Option{Key: e.Key, Kind: e.Kind, Value: bytes.Clone(e.Value)})
	}
	return patch.Sorted(), OK
}

// ApplyOptionsPatch applies an admitted update: each patched key becomes
// explicit with the patch value and leaves the derived block; every other key
// keeps its value and provenance (the update is a patch, not a replacement).
func ApplyOptionsPatch(explicit, derived, patch Options) (Options, Options) {
	nextExplicit := make(Options, 0, len(explicit)+len(patch))
	for _, e := range explicit {
		if _, patched := patch.Get(e.Key); !patched {
			nextExplicit = append(nextExplicit, e)
		}
	}
	nextExplicit = append(nextExplicit, patch...)
	nextDerived := make(Options, 0, len(derived))
	for _, e := range derived {
		if _, patched := patch.Get(e.Key); !patched {
			nextDerived = append(nextDerived, e)
		}
	}
	return nextExplicit.Sorted(), nextDerived.Sorted()
}

// OptionDescriptor is one entry of a DescribeOptions reply (protocol-framing.md 7.5).
type OptionDescriptor struct {
	Key         string
	Kind        ValueKind
	Default     []byte
	Description string
}

// describeDescriptorBytesMin is the smallest descriptor: a 1-byte key, kind,
// and two empty u32-prefixed fields. It bounds the count a reply may claim.
const describeDescriptorBytesMin = 1 + 1 + 1 + 4 + 4

// DecodeDescribeOptionsRequest reads [scope u8]; an empty body or an unknown
// scope is 3 InvalidCommand. Covers RES-2.
func DecodeDescribeOptionsRequest(body []byte) (OptionScope, Code) {
	r := NewReader(body)
	scope := OptionScope(r.U8())
	if r.Err() != OK {
		return 0, r.Err()
	}
	if _, code := CatalogFor(scope); code != OK {
		return 0, code
	}
	return scope, OK
}

// EncodeDescribeOptionsRequest writes the request body for scope.
func EncodeDescribeOptionsRequest(w *Writer, scope OptionScope) { w.U8(uint8(scope)) }

// EncodeDescribeOptions writes the reply body: [count u32] and every entry of
// c in catalog order with its canonical kind, default and description.
func EncodeDescribeOptions(w *Writer, c *Catalog) {
	w.U32(uint32(len(c.Specs)))
	for _, s := range c.Specs {
		w.Name(s.Key)
		w.U8(uint8(s.Kind))
		w.U32(uint32(len(s.Default)))
		w.Bytes(s.Default)
		w.Str32(s.Description)
	}
}

// DecodeDescribeOptions reads a DescribeOptions reply body (client side).
func DecodeDescribeOptions(body []byte) ([]OptionDescriptor, Code) {
	r := NewReader(body)
	count := r.U32()
	if r.Err() == OK && uint64(count) > uint64(r.Len()/describeDescriptorBytesMin) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return nil, r.Err()
	}
	out := make([]OptionDescriptor, 0, count)
	for range count {
		d := OptionDescriptor{Key: r.Name(), Kind: ValueKind(r.U8())}
		n := r.U32()
		if r.Err() == OK && uint64(n) > uint64(r.Len()) {
			r.Fail(InvalidCommand)
		}
		d.Default = bytes.Clone(r.Bytes(int(n)))
		d.Description = r.Str32()
		if r.Err() != OK {
			return nil, r.Err()
		}
		out = append(out, d)
	}
	if r.Len() != 0 {
		return nil, InvalidCommand
	}
	return out, OK
}

func u32Bytes(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64Bytes(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func boolBytes(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

// Stream option keys of the target release (ENC-6, ENC-13..15). The key itself
// is secret and create-only; the three projections are computed by the server
// and refused from clients with 4105 (RES-13).
const (
	OptEncryptionKey            = "encryption_key"
	OptEncryptionKeySource      = "encryption_key_source"
	OptEncryptionKeyFingerprint = "encryption_key_fingerprint"
	OptEncryptionKEKFingerprint = "encryption_kek_fingerprint"
	StreamKeyBytes              = 32
)

// StreamCatalog is the stream scope. It has no derived entries: no key has a default.
var StreamCatalog = &Catalog{Scope: ScopeStream, Specs: []OptionSpec{
	{Key: OptEncryptionKey, Kind: KindRaw, Secret: true, Critical: true,
		Description: "The stream's own 32-byte data key, given only at create; never returned.",
		parse:       parseStreamKeyOption},
	{Key: OptEncryptionKeySource, Kind: KindString, ReadOnly: true,
		Description: "Where the stream key came from: stream, server or none.",
		parse:       refuseOption},
	{Key: OptEncryptionKeyFingerprint, Kind: KindString, ReadOnly: true,
		Description: "Fingerprint of the stream key.",
		parse:       refuseOption},
	{Key: OptEncryptionKEKFingerprint, Kind: KindString, ReadOnly: true,
		Description: "Fingerprints of the server keys that wrap the stream key, comma-separated.",
		parse:       refuseOption},
}}

// UserCatalog is the user scope, empty in both snapshot and target: every key is 4041.
var UserCatalog = &Catalog{Scope: ScopeUser}

// parseStreamKeyOption takes exactly 32 raw bytes (ENC-7).
func parseStreamKeyOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	if kind != KindRaw || len(v) != StreamKeyBytes {
		return nil, false, false
	}
	return bytes.Clone(v), false, true
}

// refuseOption is the parser of read-only keys; admission refuses them before parsing.
func refuseOption(ValueKind, []byte) ([]byte, bool, bool) { return nil, false, false }
