package wire

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"
)

func encodeUpdateResource(q UpdateResourceRequest) []byte {
	w := Writer{}
	q.Encode(&w)
	return w.Buf
}

func strOpt(key, value string) Option {
	return Option{Key: key, Kind: KindString, Value: []byte(value)}
}

// The layout we chose, byte by byte, for a topic target with one set entry
// and one reset key (DESIGN.md "Wire layouts we chose").
// covers RES-5
func TestUpdateResourcePinnedLayout(t *testing.T) {
	q := UpdateResourceRequest{Scope: ScopeTopic, Stream: NumericID(1), Topic: NamedID("t"),
		Set: Options{strOpt("name", "x")}, Reset: []string{"max_topic_size"}}
	got := hex.EncodeToString(encodeUpdateResource(q))
	want := "01" + // scope topic
		"010401000000" + "020174" + // stream 1, topic "t"
		"0f000000" + // set_len 15
		"0204000000" + hex.EncodeToString([]byte("name")) + "0201000000" + "78" +
		"01" + "0e" + hex.EncodeToString([]byte("max_topic_size"))
	if got != want {
		t.Fatalf("encoding\n got %s\nwant %s", got, want)
	}
}

// covers RES-5
func TestUpdateResourceRoundTrip(t *testing.T) {
	cases := []UpdateResourceRequest{
		{Scope: ScopeTopic, Stream: NamedID("s"), Topic: NumericID(7)},
		{Scope: ScopeTopic, Stream: NumericID(0), Topic: NumericID(0),
			Set:   Options{{Key: OptMessageExpiry, Kind: KindUint64, Value: u64Bytes(5)}},
			Reset: []string{OptMaxTopicSize, "x"}},
		{Scope: ScopeStream, Stream: NamedID("orders"), Set: Options{strOpt("name", "orders-2")}},
		{Scope: ScopeUser, User: NumericID(3),
			Set: Options{strOpt("username", "carol"), {Key: "status", Kind: KindUint8, Value: []byte{2}}}},
	}
	for _, q := range cases {
		b := encodeUpdateResource(q)
		back, code := DecodeUpdateResourceRequest(b)
		if code != OK {
			t.Fatalf("%+v: decode %v", q, code)
		}
		if !reflect.DeepEqual(back, q) {
			t.Fatalf("round trip\n got %+v\nwant %+v", back, q)
		}
	}
}

// The cross-SDK golden options block travels unchanged as a set block; both
// of its keys are fixed at create.
// covers RES-10
func TestUpdateResourceGoldenSetBlock(t *testing.T) {
	block := dataVector(t, 24)
	body := []byte{byte(ScopeTopic), 1, 4, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0}
	body = append(body, u32Bytes(uint32(len(block)))...)
	body = append(body, block...)
	body = append(body, 0)
	q, code := DecodeUpdateResourceRequest(body)
	if code != OK || len(q.Set) != 2 || q.Set[0].Key != OptEnforceFsync || q.Set[1].Key != OptSegmentSize {
		t.Fatalf("decode: %+v %v", q, code)
	}
	if !bytes.Equal(encodeUpdateResource(q), body) {
		t.Fatal("re-encoding differs")
	}
	if _, code := AdmitUpdateResource(q); code != OptionNotUpdatable {
		t.Fatalf("admit: %v, want 4103", code)
	}
}

// covers RES-5, RES-7
func TestUpdateResourceStructuralErrors(t *testing.T) {
	valid := encodeUpdateResource(UpdateResourceRequest{Scope: ScopeStream, Stream: NumericID(1),
		Set: Options{strOpt("name", "n")}, Reset: []string{"k"}})
	badTLV := []byte{2, 1, 4, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0}
	cases := map[string][]byte{
		"empty":            {},
		"scope 0":          {0, 1, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		"scope 4":          {4, 1, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		"short identifier": {2, 1, 4, 1, 0},
		"no reset count":   {2, 1, 4, 1, 0, 0, 0, 0, 0, 0, 0},
		"set overruns":     {2, 1, 4, 1, 0, 0, 0, 9, 0, 0, 0, 0},
		"bad set tlv":      append(badTLV, 0),
		"empty reset key":  {2, 1, 4, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0},
		"trailing byte":    append(bytes.Clone(valid), 0),
		"duplicate reset":  {2, 1, 4, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 'k', 1, 'k'},
		"truncated":        valid[:len(valid)-1],
	}
	for name, b := range cases {
		if _, code := DecodeUpdateResourceRequest(b); code != InvalidCommand {
			t.Errorf("%s: %v, want 3", name, code)
		}
	}
	if _, code := DecodeUpdateResourceRequest(valid); code != OK {
		t.Fatalf("valid: %v", code)
	}
}

func admit(q UpdateResourceRequest) (ResourcePatch, Code) {
	back, code := DecodeUpdateResourceRequest(encodeUpdateResource(q))
	if code != OK {
		return ResourcePatch{}, code
	}
	return AdmitUpdateResource(back)
}

// covers RES-6, RES-9, RES-12, RES-14
func TestAdmitTopicPatch(t *testing.T) {
	p, code := admit(UpdateResourceRequest{Scope: ScopeTopic, Stream: NumericID(0), Topic: NumericID(0),
		Set:   Options{strOpt(OptMessageExpiry, "7 days"), strOpt("name", "renamed")},
		Reset: []string{OptMaxTopicSize}})
	if code != OK {
		t.Fatalf("admit: %v", code)
	}
	weekMicros := uint64(7 * 24 * 3600 * 1e6)
	want := ResourcePatch{Name: "renamed",
		Set:   Options{{Key: OptMessageExpiry, Kind: KindUint64, Value: u64Bytes(weekMicros)}},
		Reset: Options{{Key: OptMaxTopicSize, Kind: KindUint64, Value: u64Bytes(Unlimited)}}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("patch\n got %+v\nwant %+v", p, want)
	}
	// The server-default sentinel is a reset: the key returns to its default.
	p, code = admit(UpdateResourceRequest{Scope: ScopeTopic, Stream: NumericID(0), Topic: NumericID(0),
		Set: Options{{Key: OptMessageExpiry, Kind: KindUint64, Value: u64Bytes(0)}}})
	if code != OK || len(p.Set) != 0 || len(p.Reset) != 1 || !bytes.Equal(p.Reset[0].Value, u64Bytes(Unlimited)) {
		t.Fatalf("sentinel: %+v %v", p, code)
	}
	// An empty update is admitted and changes nothing.
	if p, code := admit(UpdateResourceRequest{Scope: ScopeTopic, Stream: NumericID(0), Topic: NumericID(0)}); code != OK || p.Name != "" || p.Status != 0 || len(p.Set) != 0 || len(p.Reset) != 0 {
		t.Fatalf("empty: %+v %v", p, code)
	}
}

// covers RES-7, RES-9, RES-10, RES-11, RES-12, RES-13
func TestAdmitRefusals(t *testing.T) {
	topic := func(set Options, reset ...string) UpdateResourceRequest {
		return UpdateResourceRequest{Scope: ScopeTopic, Stream: NumericID(0), Topic: NumericID(0), Set: set, Reset: reset}
	}
	stream := func(set Options, reset ...string) UpdateResourceRequest {
		return UpdateResourceRequest{Scope: ScopeStream, Stream: NumericID(0), Set: set, Reset: reset}
	}
	user := func(set Options, reset ...string) UpdateResourceRequest {
		return UpdateResourceRequest{Scope: ScopeUser, User: NumericID(1), Set: set, Reset: reset}
	}
	expiry := func(v uint64) Option { return Option{Key: OptMessageExpiry, Kind: KindUint64, Value: u64Bytes(v)} }
	cases := []struct {
		name string
		q    UpdateResourceRequest
		want Code
	}{
		{"set and reset", topic(Options{expiry(5)}, OptMessageExpiry), InvalidCommand},
		{"name set and reset", stream(Options{strOpt("name", "x")}, "name"), InvalidCommand},
		{"unknown key", topic(Options{strOpt("colour", "red")}), UnsupportedOptionKey},
		{"unknown reset", topic(nil, "colour"), UnsupportedOptionKey},
		{"username on a topic", topic(Options{strOpt("username", "abc")}), UnsupportedOptionKey},
		{"name on a user", user(Options{strOpt("name", "abc")}), UnsupportedOptionKey},
		{"catalog key on a user", user(Options{expiry(5)}), UnsupportedOptionKey},
		{"segment_size set", topic(Options{strOpt(OptSegmentSize, "2 MiB")}), OptionNotUpdatable},
		{"compression set", topic(Options{strOpt(OptCompressionAlgorithm, "gzip")}), OptionNotUpdatable},
		{"durability set", topic(Options{strOpt(OptDurability, "persisted")}), OptionNotUpdatable},
		{"resize policy set", topic(Options{strOpt(OptPartitionResizePolicy, "fixed")}), OptionNotUpdatable},
		{"encryption_key set", stream(Options{{Key: OptEncryptionKey, Kind: KindRaw, Value: make([]byte, 32)}}), OptionNotUpdatable},
		{"segment_size reset", topic(nil, OptSegmentSize), OptionNotResettable},
		{"name reset", topic(nil, "name"), OptionNotResettable},
		{"status reset", user(nil, "status"), OptionNotResettable},
		{"encryption_key reset", stream(nil, OptEncryptionKey), OptionNotResettable},
		{"read-only set", stream(Options{strOpt(OptEncryptionKeySource, "none")}), ReadOnlyOption},
		{"read-only reset", stream(nil, OptEncryptionKEKFingerprint), ReadOnlyOption},
		{"expiry as bool", topic(Options{{Key: OptMessageExpiry, Kind: KindBool, Value: []byte{1}}}), InvalidOptionValue},
		{"expiry word", topic(Options{strOpt(OptMessageExpiry, "soon")}), InvalidOptionValue},
		{"name as u8", topic(Options{{Key: "name", Kind: KindUint8, Value: []byte{1}}}), InvalidOptionValue},
		{"status 3", user(Options{{Key: "status", Kind: KindUint8, Value: []byte{3}}}), InvalidOptionValue},
		{"status word", user(Options{strOpt("status", "asleep")}), InvalidOptionValue},
		{"set checked before reset", topic(Options{strOpt("colour", "red")}, OptSegmentSize), UnsupportedOptionKey},
	}
	for _, c := range cases {
		if _, code := admit(c.q); code != c.want {
			t.Errorf("%s: %d, want %d", c.name, code, c.want)
		}
	}
}

// covers RES-9
func TestAdmitUserIdentityKeys(t *testing.T) {
	for _, status := range []Option{strOpt("status", "Inactive"), {Key: "status", Kind: KindUint8, Value: []byte{2}}} {
		p, code := admit(UpdateResourceRequest{Scope: ScopeUser, User: NamedID("bob"),
			Set: Options{strOpt("username", "robert"), status}})
		if code != OK || p.Name != "robert" || p.Status != UserStatusInactive || len(p.Set) != 0 || len(p.Reset) != 0 {
			t.Fatalf("%+v: %+v %v", status, p, code)
		}
	}
	if UserStatusWord(UserStatusActive) != "active" || UserStatusWord(UserStatusInactive) != "inactive" {
		t.Fatal("status words")
	}
}

func FuzzDecodeUpdateResourceRequest(f *testing.F) {
	f.Add(encodeUpdateResource(UpdateResourceRequest{Scope: ScopeTopic, Stream: NumericID(1), Topic: NamedID("t"),
		Set: Options{strOpt(OptMessageExpiry, "1h")}, Reset: []string{OptMaxTopicSize}}))
	f.Add(encodeUpdateResource(UpdateResourceRequest{Scope: ScopeUser, User: NumericID(0),
		Set: Options{strOpt("status", "inactive")}}))
	if block := dataVectorSeed(f, 24); block != nil {
		body := []byte{byte(ScopeStream), 2, 1, 's'}
		body = append(body, u32Bytes(uint32(len(block)))...)
		f.Add(append(append(body, block...), 1, 4, 'n', 'a', 'm', 'e'))
	}
	f.Add([]byte{})
	f.Add([]byte{3, 1, 4, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		q, code := DecodeUpdateResourceRequest(b)
		if code != OK {
			if code != InvalidCommand {
				t.Fatalf("decode failure %d, want 3", code)
			}
			return
		}
		if again := encodeUpdateResource(q); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", again, b)
		}
		if p, code := AdmitUpdateResource(q); code == OK {
			if p.Set.Check() != OK || p.Reset.Check() != OK {
				t.Fatalf("admitted patch is not a valid block: %+v", p)
			}
		}
	})
}
