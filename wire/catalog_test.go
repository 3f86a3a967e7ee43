package wire

import (
	"bytes"
	"testing"
)

func opt(key string, kind ValueKind, v []byte) Option { return Option{Key: key, Kind: kind, Value: v} }
func optStr(key, v string) Option                     { return opt(key, KindString, []byte(v)) }

// covers RES-1, RES-14, RES-24
func TestTopicAdmitCreateCanonicalizes(t *testing.T) {
	block := Options{
		optStr(OptCompressionAlgorithm, "GZIP"),
		optStr(OptMessageExpiry, "7 days"),
		optStr(OptMaxTopicSize, "2 GiB"),
		optStr(OptSegmentSize, "128MiB"),
		optStr(OptEnforceFsync, "true"),
		optStr(OptMessagesRequiredToSave, "7"),
		optStr(OptSizeOfMessagesRequiredToSave, "4KiB"),
		opt(OptPreallocateSegments, KindBool, []byte{0}),
	}
	a, topic, code := AdmitTopicCreate(block, 3)
	if code != OK {
		t.Fatalf("admit: %v", code)
	}
	want := Options{
		optStr(OptCompressionAlgorithm, "gzip"),
		opt(OptEnforceFsync, KindBool, []byte{1}),
		opt(OptMaxTopicSize, KindUint64, u64Bytes(2<<30)),
		opt(OptMessageExpiry, KindUint64, u64Bytes(7*86400*1e6)),
		opt(OptMessagesRequiredToSave, KindUint32, u32Bytes(7)),
		opt(OptPreallocateSegments, KindBool, []byte{0}),
		opt(OptSegmentSize, KindUint64, u64Bytes(128<<20)),
		opt(OptSizeOfMessagesRequiredToSave, KindUint64, u64Bytes(4096)),
	}
	if !optionsEqual(a.Explicit, want) {
		t.Fatalf("explicit:\n%+v\nwant\n%+v", a.Explicit, want)
	}
	wantDerived := Options{
		optStr(OptConsumerOffsetDurability, "replicated"),
		optStr(OptDurability, "replicated"),
		optStr(OptPartitionResizePolicy, "mutable"),
	}
	if !optionsEqual(a.Derived, wantDerived) || len(a.Secret) != 0 {
		t.Fatalf("derived: %+v secret %+v", a.Derived, a.Secret)
	}
	wantTopic := TopicOptions{CompressionAlgorithm: CompressionGzip, MessageExpiryMicros: 7 * 86400 * 1e6,
		MaxTopicSizeBytes: 2 << 30, SegmentSizeBytes: 128 << 20, EnforceFsync: true,
		MessagesRequiredToSave: 7, SizeOfMessagesRequiredToSave: 4096,
		Durability: DurabilityReplicated, ConsumerOffsetDurability: DurabilityReplicated,
		PartitionResizePolicy: ResizeMutable}
	if topic != wantTopic {
		t.Fatalf("typed view %+v", topic)
	}
	if got := TopicOptionsFrom(a.Explicit, a.Derived); got != wantTopic {
		t.Fatalf("TopicOptionsFrom %+v", got)
	}
}

// covers RES-14
func TestTopicAdmitCreateDefaultsAndSentinels(t *testing.T) {
	a, topic, code := AdmitTopicCreate(nil, 1)
	if code != OK || len(a.Explicit) != 0 || topic != DefaultTopicOptions() {
		t.Fatalf("empty block: %v %+v %+v", code, a, topic)
	}
	if len(a.Derived) != 11 {
		t.Fatalf("derived has %d entries, want 11 (every key with a default)", len(a.Derived))
	}
	for i := 1; i < len(a.Derived); i++ {
		if a.Derived[i-1].Key >= a.Derived[i].Key {
			t.Fatalf("derived not sorted: %q %q", a.Derived[i-1].Key, a.Derived[i].Key)
		}
	}
	// Zero means "server default": the key moves to the derived block.
	block := Options{
		opt(OptMessageExpiry, KindUint64, u64Bytes(0)),
		opt(OptMaxTopicSize, KindUint64, u64Bytes(0)),
		optStr(OptSegmentSize, "0"),
		opt(OptSizeOfMessagesRequiredToSave, KindUint64, u64Bytes(0)),
		optStr(OptReplicationFactor, "all"),
		opt(OptEnforceFsync, KindBool, []byte{1}),
	}
	a, topic, code = AdmitTopicCreate(block, 1)
	if code != OK || len(a.Explicit) != 1 || a.Explicit[0].Key != OptEnforceFsync {
		t.Fatalf("sentinels: %v %+v", code, a.Explicit)
	}
	if _, ok := a.Derived.Get(OptMessageExpiry); !ok {
		t.Fatal("message_expiry 0 must be derived")
	}
	if topic.MessageExpiryMicros != Unlimited || topic.ReplicationFactor != 0 {
		t.Fatalf("typed view %+v", topic)
	}
}

// covers RES-24, RES-31
func TestTopicOptionValueErrors(t *testing.T) {
	bad := map[string]Option{
		"compression word":        optStr(OptCompressionAlgorithm, "zstd"),
		"compression code 3":      opt(OptCompressionAlgorithm, KindUint8, []byte{3}),
		"compression code 0":      opt(OptCompressionAlgorithm, KindUint8, []byte{0}),
		"compression as Uint64":   opt(OptCompressionAlgorithm, KindUint64, u64Bytes(2)),
		"expiry wrong size":       opt(OptMessageExpiry, KindUint64, []byte{1, 2, 3}),
		"expiry garbage":          optStr(OptMessageExpiry, "soon"),
		"expiry above u32 secs":   optStr(OptMessageExpiry, "200 years"),
		"segment not 512 aligned": opt(OptSegmentSize, KindUint64, u64Bytes(1<<20+1)),
		"segment below 1 MiB":     opt(OptSegmentSize, KindUint64, u64Bytes(512)),
		"segment above 1 GiB":     optStr(OptSegmentSize, "2 GiB"),
		"fsync byte 2":            opt(OptEnforceFsync, KindBool, []byte{2}),
		"fsync word":              optStr(OptEnforceFsync, "yes"),
		"messages 0":              opt(OptMessagesRequiredToSave, KindUint32, u32Bytes(0)),
		"messages too many":       optStr(OptMessagesRequiredToSave, "16777217"),
		"messages as Uint64":      opt(OptMessagesRequiredToSave, KindUint64, u64Bytes(5)),
		"save size above 1 GiB":   opt(OptSizeOfMessagesRequiredToSave, KindUint64, u64Bytes(1<<30+1)),
		"durability word":         optStr(OptDurability, "eventual"),
		"resize word":             optStr(OptPartitionResizePolicy, "elastic"),
		"replication 0":           opt(OptReplicationFactor, KindUint8, []byte{0}),
		"replication 33":          optStr(OptReplicationFactor, "33"),
	}
	for name, o := range bad {
		if _, _, code := AdmitTopicCreate(Options{o}, 1); code != InvalidOptionValue {
			t.Errorf("%s: got %v, want 4042", name, code)
		}
	}
	good := []Option{
		opt(OptCompressionAlgorithm, KindUint8, []byte{1}),
		optStr(OptMessageExpiry, "never_expire"),
		optStr(OptMessageExpiry, "1h 30m"),
		optStr(OptMaxTopicSize, "unlimited"),
		optStr(OptSegmentSize, "1 GiB"),
		optStr(OptDurability, "persisted"),
		optStr(OptConsumerOffsetDurability, "none"),
		optStr(OptPartitionResizePolicy, "fixed"),
		opt(OptReplicationFactor, KindUint8, []byte{32}),
	}
	for _, o := range good {
		if _, _, code := AdmitTopicCreate(Options{o}, 1); code != OK {
			t.Errorf("%s=%x: got %v", o.Key, o.Value, code)
		}
	}
}

// covers RES-1, RES-13
func TestCatalogKeyErrors(t *testing.T) {
	if _, _, code := AdmitTopicCreate(Options{optStr("partitions_count", "3")}, 1); code != UnsupportedOptionKey {
		t.Errorf("unknown topic key: %v", code)
	}
	if _, code := StreamCatalog.AdmitCreate(Options{optStr("future_key", "v")}); code != UnsupportedOptionKey {
		t.Errorf("unknown stream key: %v", code)
	}
	if _, code := StreamCatalog.AdmitCreate(Options{optStr(OptEncryptionKeySource, "none")}); code != ReadOnlyOption {
		t.Errorf("read-only stream key: %v", code)
	}
	if _, code := UserCatalog.AdmitCreate(Options{optStr("anything", "v")}); code != UnsupportedOptionKey {
		t.Errorf("user key: %v", code)
	}
	if _, code := UserCatalog.AdmitUpdate(Options{optStr("anything", "v")}); code != UnsupportedOptionKey {
		t.Errorf("user update key: %v", code)
	}
	dup := Options{optStr(OptDurability, "none"), optStr(OptDurability, "none")}
	if _, _, code := AdmitTopicCreate(dup, 1); code != InvalidCommand {
		t.Errorf("duplicate key: %v", code)
	}
}

// covers ENC-6, ENC-7, ENC-12, RES-11
func TestStreamEncryptionKeyIsSecret(t *testing.T) {
	key := bytes.Repeat([]byte{7}, StreamKeyBytes)
	a, code := StreamCatalog.AdmitCreate(Options{opt(OptEncryptionKey, KindRaw, key)})
	if code != OK || len(a.Explicit) != 0 || len(a.Derived) != 0 || len(a.Secret) != 1 {
		t.Fatalf("admit: %v %+v", code, a)
	}
	if _, code := StreamCatalog.AdmitCreate(Options{opt(OptEncryptionKey, KindRaw, key[:31])}); code != InvalidOptionValue {
		t.Errorf("31-byte key: %v", code)
	}
	if _, code := StreamCatalog.AdmitUpdate(Options{opt(OptEncryptionKey, KindRaw, key)}); code != OptionNotUpdatable {
		t.Errorf("key update: %v", code)
	}
}

// covers RES-9, RES-10
func TestTopicAdmitUpdate(t *testing.T) {
	current := DefaultTopicOptions()
	patch, next, code := AdmitTopicUpdate(Options{
		optStr(OptMessageExpiry, "5s"),
		opt(OptMaxTopicSize, KindUint64, u64Bytes(4<<30)),
	}, current)
	if code != OK || next.MessageExpiryMicros != 5e6 || next.MaxTopicSizeBytes != 4<<30 {
		t.Fatalf("update: %v %+v", code, next)
	}
	// The patch keeps the client's kinds and bytes verbatim.
	if e, _ := patch.Get(OptMessageExpiry); e.Kind != KindString || string(e.Value) != "5s" {
		t.Fatalf("patch not verbatim: %+v", e)
	}
	for _, key := range []string{OptCompressionAlgorithm, OptSegmentSize, OptDurability,
		OptConsumerOffsetDurability, OptPartitionResizePolicy, OptMessagesRequiredToSave,
		OptSizeOfMessagesRequiredToSave, OptEnforceFsync, OptPreallocateSegments, OptReplicationFactor} {
		if _, _, code := AdmitTopicUpdate(Options{optStr(key, "x")}, current); code != OptionNotUpdatable {
			t.Errorf("update of %s: got %v, want 4103", key, code)
		}
	}
	if _, _, code := AdmitTopicUpdate(Options{optStr("partitions_count", "1")}, current); code != UnsupportedOptionKey {
		t.Errorf("unknown key: %v", code)
	}
	if _, _, code := AdmitTopicUpdate(Options{optStr(OptMessageExpiry, "soon")}, current); code != InvalidOptionValue {
		t.Errorf("bad value: %v", code)
	}
}

// covers RES-6, RES-14
func TestApplyOptionsPatch(t *testing.T) {
	a, _, _ := AdmitTopicCreate(Options{optStr(OptMaxTopicSize, "2 GiB")}, 1)
	patch, _, code := AdmitTopicUpdate(Options{optStr(OptMessageExpiry, "1 day")}, TopicOptionsFrom(a.Explicit, a.Derived))
	if code != OK {
		t.Fatal(code)
	}
	explicit, derived := ApplyOptionsPatch(a.Explicit, a.Derived, patch)
	if len(explicit) != 2 || len(derived) != len(a.Derived)-1 {
		t.Fatalf("explicit %+v derived %d", explicit, len(derived))
	}
	if _, ok := derived.Get(OptMessageExpiry); ok {
		t.Fatal("patched key still derived")
	}
	got := TopicOptionsFrom(explicit, derived)
	if got.MessageExpiryMicros != 86400e6 || got.MaxTopicSizeBytes != 2<<30 {
		t.Fatalf("after patch %+v", got)
	}
}

// covers RES-9
func TestTopicSizeBelowSegmentSize(t *testing.T) {
	// Vector 53's update: max_topic_size 100 is below every legal segment size.
	if _, _, code := AdmitTopicUpdate(Options{opt(OptMaxTopicSize, KindUint64, u64Bytes(100))},
		DefaultTopicOptions()); code != InvalidTopicSize {
		t.Errorf("update: %v", code)
	}
	block := Options{optStr(OptSegmentSize, "16 MiB"), optStr(OptMaxTopicSize, "8 MiB")}
	if _, _, code := AdmitTopicCreate(block, 1); code != InvalidTopicSize {
		t.Errorf("create: %v", code)
	}
	block = Options{optStr(OptPreallocateSegments, "true")}
	if _, _, code := AdmitTopicCreate(block, 65); code != InvalidOptionValue {
		t.Errorf("preallocation of 65 GiB: %v", code)
	}
	if _, _, code := AdmitTopicCreate(block, 64); code != OK {
		t.Errorf("preallocation of 64 GiB: %v", code)
	}
}

// The create vectors 51 and 52 pass admission; 52's typed values come through.
func TestTopicVectorsAdmit(t *testing.T) {
	q, code := DecodeCreateTopicRequest(dataVector(t, 52))
	if code != OK {
		t.Fatal(code)
	}
	_, topic, code := AdmitTopicCreate(q.Options, q.PartitionsCount)
	if code != OK || topic.SegmentSizeBytes != 1<<20 || !topic.EnforceFsync ||
		topic.MessagesRequiredToSave != 7 || topic.SizeOfMessagesRequiredToSave != 4096 || topic.PreallocateSegments {
		t.Fatalf("vector 52: %v %+v", code, topic)
	}
	q, _ = DecodeCreateTopicRequest(dataVector(t, 51))
	if _, topic, code = AdmitTopicCreate(q.Options, q.PartitionsCount); code != OK ||
		topic.CompressionAlgorithm != CompressionGzip || topic.MessageExpiryMicros != 100 {
		t.Fatalf("vector 51: %v %+v", code, topic)
	}
}

// covers RES-2
func TestDescribeOptions(t *testing.T) {
	for _, body := range [][]byte{nil, {0}, {4}} {
		if _, code := DecodeDescribeOptionsRequest(body); code != InvalidCommand {
			t.Errorf("scope %x: %v", body, code)
		}
	}
	scope, code := DecodeDescribeOptionsRequest([]byte{1})
	c, _ := CatalogFor(scope)
	if code != OK || c != TopicCatalog {
		t.Fatal("topic scope")
	}
	w := &Writer{}
	EncodeDescribeOptions(w, TopicCatalog)
	d, code := DecodeDescribeOptions(w.Buf)
	if code != OK || len(d) != len(TopicCatalog.Specs) {
		t.Fatalf("decode: %v %d", code, len(d))
	}
	// The snapshot's eight keys come first, in protocol-framing.md 7.5 order.
	want := []struct {
		key  string
		kind ValueKind
		def  []byte
	}{
		{OptCompressionAlgorithm, KindString, []byte("none")},
		{OptMessageExpiry, KindUint64, u64Bytes(Unlimited)},
		{OptMaxTopicSize, KindUint64, u64Bytes(Unlimited)},
		{OptSegmentSize, KindUint64, u64Bytes(1073741824)},
		{OptEnforceFsync, KindBool, []byte{0}},
		{OptMessagesRequiredToSave, KindUint32, u32Bytes(1024)},
		{OptSizeOfMessagesRequiredToSave, KindUint64, u64Bytes(1048576)},
		{OptPreallocateSegments, KindBool, []byte{0}},
	}
	for i, x := range want {
		if d[i].Key != x.key || d[i].Kind != x.kind || !bytes.Equal(d[i].Default, x.def) || d[i].Description == "" {
			t.Errorf("descriptor %d: %+v", i, d[i])
		}
	}
	w = &Writer{}
	EncodeDescribeOptions(w, UserCatalog)
	if !bytes.Equal(w.Buf, []byte{0, 0, 0, 0}) {
		t.Errorf("user scope: %x", w.Buf)
	}
	if _, code := DecodeDescribeOptions(append(w.Buf, 0)); code != InvalidCommand {
		t.Error("trailing byte accepted")
	}
	if _, code := DecodeDescribeOptions([]byte{0xff, 0xff, 0xff, 0xff}); code != InvalidCommand {
		t.Error("huge count accepted")
	}
}

func TestOptionValueParsers(t *testing.T) {
	sizes := map[string]uint64{"2 MB": 2e6, "64 MiB": 64 << 20, "1200 B": 1200, "1 GiB": 1 << 30,
		"500 mb": 62_500_000, "10k": 10_000, "1.5 KB": 1500, "1.5 KiB": 1536, "7": 7, " 3 KB ": 3000,
		"1 bit": 1, "10Ki": 10240, "18446744073709551615": 1<<64 - 1}
	for s, want := range sizes {
		if got, ok := parseByteSize(s); !ok || got != want {
			t.Errorf("parseByteSize(%q) = %d %v, want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "GiB", "1.", ".5", "1 XB", "-1", "18446744073709551616", "16 EiB", "1 GiBs"} {
		if got, ok := parseByteSize(s); ok {
			t.Errorf("parseByteSize(%q) = %d, want failure", s, got)
		}
	}
	durations := map[string]uint64{"7 days": 7 * 86400e6, "1h 30m": 5400e6, "1h30m": 5400e6,
		"500ms": 500e3, "0": 0, "2us": 2, "1M": 2_630_016e6, "1 year": 31_557_600e6, "1500ns": 1}
	for s, want := range durations {
		if got, ok := parseHumantimeMicros(s); !ok || got != want {
			t.Errorf("parseHumantimeMicros(%q) = %d %v, want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "7", "days", "1 H", "1.5h", "99999999999999999999s", "600000 years"} {
		if got, ok := parseHumantimeMicros(s); ok {
			t.Errorf("parseHumantimeMicros(%q) = %d, want failure", s, got)
		}
	}
}

func FuzzTopicAdmitCreate(f *testing.F) {
	for _, n := range []int{24, 51, 52} {
		b := dataVectorSeed(f, n)
		if n != 24 && b != nil {
			q, _ := DecodeCreateTopicRequest(b)
			w := &Writer{}
			w.OptionsInOrder(q.Options)
			b = w.Buf
		}
		f.Add(b, uint32(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, partitions uint32) {
		block, code := DecodeOptions(b)
		if code != OK {
			return
		}
		a, topic, code := AdmitTopicCreate(block, partitions%1001)
		if code != OK {
			return
		}
		if a.Explicit.Check() != OK || a.Derived.Check() != OK {
			t.Fatal("admitted blocks must be encodable")
		}
		if TopicOptionsFrom(a.Explicit, a.Derived) != topic {
			t.Fatal("typed view differs from stored blocks")
		}
		// Canonical blocks admit to themselves.
		again, _, code := AdmitTopicCreate(a.Explicit, partitions%1001)
		if code != OK || !optionsEqual(again.Explicit, a.Explicit) {
			t.Fatalf("canonical block not stable: %v", code)
		}
	})
}

// Stored blocks were admitted once: an entry this build cannot read keeps
// its key's default instead of failing the topic.
func TestTopicOptionsFromSkipsUnreadable(t *testing.T) {
	explicit := Options{
		optStr("future_key", "x"),
		opt(OptSegmentSize, KindUint32, u32Bytes(1<<20)),
		optStr(OptMessageExpiry, "default"),
		optStr(OptMaxTopicSize, "server_default"),
		opt(OptEnforceFsync, KindBool, []byte{1}),
	}
	got := TopicOptionsFrom(explicit, nil)
	want := DefaultTopicOptions()
	want.EnforceFsync = true
	if got != want {
		t.Fatalf("got %+v", got)
	}
}

// covers RES-13
func TestCatalogScopesAndReadOnlyUpdate(t *testing.T) {
	for scope, want := range map[OptionScope]*Catalog{ScopeTopic: TopicCatalog, ScopeStream: StreamCatalog, ScopeUser: UserCatalog} {
		if c, code := CatalogFor(scope); code != OK || c != want || c.Scope != scope {
			t.Errorf("scope %d", scope)
		}
	}
	if _, code := CatalogFor(0); code != InvalidCommand {
		t.Error("scope 0 accepted")
	}
	if _, code := StreamCatalog.AdmitUpdate(Options{optStr(OptEncryptionKEKFingerprint, "x")}); code != ReadOnlyOption {
		t.Errorf("read-only update: %v", code)
	}
	if _, code := StreamCatalog.AdmitUpdate(Options{optStr("k", "v"), optStr("k", "v")}); code != InvalidCommand {
		t.Errorf("duplicate update: %v", code)
	}
}

func TestValueKindFixedSize(t *testing.T) {
	sizes := map[ValueKind]int{KindRaw: 0, KindString: 0, KindBool: 1, KindInt8: 1, KindUint8: 1, KindInt16: 2,
		KindUint16: 2, KindInt32: 4, KindUint32: 4, KindFloat32: 4, KindInt64: 8, KindUint64: 8, KindFloat64: 8,
		KindInt128: 16, KindUint128: 16, 16: 0, 255: 0}
	for k, want := range sizes {
		if got := k.FixedSize(); got != want {
			t.Errorf("kind %d: %d, want %d", k, got, want)
		}
	}
}
