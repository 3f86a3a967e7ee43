package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// covers TRAN-1
func TestPermissionsVectors(t *testing.T) {
	tests := []struct {
		file string
		want Permissions
	}{
		{"25-permissions-two-streams-two-topics.hex", Permissions{
			Global: GlobalPermissions{ManageServers: true, ReadUsers: true, ManageStreams: true, ReadStreams: true,
				PollMessages: true},
			Streams: map[uint32]StreamPermissions{
				1: {ManageStream: true, ReadStream: true, PollMessages: true, Topics: map[uint32]TopicPermissions{
					10: {ManageTopic: true, SendMessages: true},
					20: {PollMessages: true, SendMessages: true}}},
				2: {ReadStream: true, ManageTopics: true, SendMessages: true},
			}}},
		{"26-permissions-single-stream.hex", Permissions{
			Global: GlobalPermissions{ManageServers: true, ReadUsers: true},
			Streams: map[uint32]StreamPermissions{
				5: {ManageStream: true, ReadStream: true, ReadTopics: true, SendMessages: true}}}},
		{"27-permissions-single-topic.hex", Permissions{
			Global: GlobalPermissions{PollMessages: true},
			Streams: map[uint32]StreamPermissions{
				3: {ReadStream: true, PollMessages: true, Topics: map[uint32]TopicPermissions{
					7: {ReadTopic: true, PollMessages: true}}}}}},
	}
	for _, tt := range tests {
		block := framingVector(t, tt.file)
		r := NewReader(block)
		got := r.Permissions(len(block))
		if r.Err() != OK || !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("%s: %+v %v", tt.file, got, r.Err())
		}
		var w Writer
		w.Permissions(got)
		if !bytes.Equal(w.Buf, block) {
			t.Fatalf("%s: re-encoded\n%x\n%x", tt.file, w.Buf, block)
		}
		short := NewReader(block)
		short.Permissions(len(block) - 1)
		if short.Err() != InvalidCommand {
			t.Fatalf("%s: a size that does not match the block must fail", tt.file)
		}
	}
}

// covers TRAN-1
func TestPermissionsSizeFormula(t *testing.T) {
	p := Permissions{Streams: map[uint32]StreamPermissions{
		9: {Topics: map[uint32]TopicPermissions{1: {}, 2: {}, 3: {}}}, 4: {}}}
	var w Writer
	w.Permissions(p)
	if want := 11 + (12 + 3*9) + 12; len(w.Buf) != want {
		t.Fatalf("%d bytes, want %d", len(w.Buf), want)
	}
}

// covers TRAN-1
func FuzzPermissions(f *testing.F) {
	addFramingSeeds(f, "25-permissions-two-streams-two-topics.hex", "26-permissions-single-stream.hex",
		"27-permissions-single-topic.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, func(b []byte) (Permissions, Code) {
			r := NewReader(b)
			p := r.Permissions(len(b))
			return p, r.Err()
		}, func(w *Writer, p Permissions) { w.Permissions(p) }, b)
	})
}
