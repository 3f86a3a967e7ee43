package wire

import (
	"bytes"
	"reflect"
	"testing"
)

func encGroupRef(q GroupRef, w *Writer)                      { q.Encode(w) }
func encCreateGroup(q CreateConsumerGroupRequest, w *Writer) { q.Encode(w) }
func encGroupResponse(g ConsumerGroupResponse, w *Writer)    { g.Encode(w) }
func encGroups(g []ConsumerGroupResponse, w *Writer)         { EncodeConsumerGroups(w, g) }
func encGroupDetails(d ConsumerGroupDetails, w *Writer)      { d.Encode(w) }
func encAssignment(a GroupAssignment, w *Writer)             { a.Encode(w) }
func decGroupDetailsFound(b []byte) (ConsumerGroupDetails, Code) {
	return foundOnly(DecodeConsumerGroupDetails(b))
}
func decAssignmentFound(b []byte) (GroupAssignment, Code) { return foundOnly(DecodeGroupAssignment(b)) }

func TestConsumerGroupVectors(t *testing.T) {
	c := dataExact(t, DecodeCreateConsumerGroupRequest, encCreateGroup, dataVector(t, 73))
	if c != (CreateConsumerGroupRequest{StreamID: NumericID(1), TopicID: NumericID(2), Name: "grp"}) {
		t.Fatalf("73: %+v", c)
	}
	body := frameBody(dataVector(t, 74))
	if !bytes.Equal(body[:4], []byte{0, 0, 0, 0}) {
		t.Fatalf("74: result section %x", body[:4])
	}
	g := dataExact(t, DecodeConsumerGroupResponse, encGroupResponse, body[4:])
	if g != (ConsumerGroupResponse{ID: 7, PartitionsCount: 3, MembersCount: 0, Name: "billing"}) {
		t.Fatalf("74: %+v", g)
	}
	list := dataExact(t, DecodeConsumerGroups, encGroups, dataVector(t, 75))
	want := []ConsumerGroupResponse{{ID: 1, PartitionsCount: 3, MembersCount: 2, Name: "billing"},
		{ID: 2, PartitionsCount: 1, MembersCount: 0, Name: "audit"}}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("75: %+v", list)
	}
	a := dataExact(t, decAssignmentFound, encAssignment, dataVector(t, 76))
	if a.Generation != 7 || !reflect.DeepEqual(a.Partitions, []uint32{0, 2, 4}) {
		t.Fatalf("76: %+v", a)
	}
	if _, member, code := DecodeGroupAssignment(nil); member || code != OK {
		t.Fatal("empty sync body must mean not a member")
	}
	if _, _, code := DecodeGroupAssignment(append(dataVector(t, 76), 0)); code != InvalidCommand {
		t.Fatal("trailing byte accepted")
	}
	if _, _, code := DecodeGroupAssignment([]byte{7, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}); code != InvalidCommand {
		t.Fatal("huge partition count accepted")
	}
}

func TestConsumerGroupDetails(t *testing.T) {
	d := ConsumerGroupDetails{
		Group: ConsumerGroupResponse{ID: 0, PartitionsCount: 3, MembersCount: 2, Name: "g"},
		Members: []ConsumerGroupMember{
			{ID: 0, Partitions: []uint32{0, 2}},
			{ID: 1, Partitions: []uint32{1}},
		},
	}
	got := dataExact(t, decGroupDetailsFound, encGroupDetails, encodeWith(encGroupDetails, d))
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("round trip: %+v", got)
	}
	if _, found, code := DecodeConsumerGroupDetails(nil); found || code != OK {
		t.Fatal("empty body must be not found")
	}
	w := &Writer{}
	ConsumerGroupResponse{MembersCount: 0xffffffff, Name: "g"}.Encode(w)
	if _, _, code := DecodeConsumerGroupDetails(w.Buf); code != InvalidCommand {
		t.Fatal("huge members_count accepted")
	}
	for _, b := range [][]byte{{1, 4, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0}, {1, 4, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 2, 0}} {
		if _, code := DecodeGroupRef(b); code != InvalidCommand {
			t.Errorf("group ref %x: %v", b, code)
		}
	}
}

func encodeWith[T any](encode func(T, *Writer), v T) []byte {
	w := &Writer{}
	encode(v, w)
	return w.Buf
}

func FuzzConsumerGroupRequests(f *testing.F) {
	f.Add(dataVectorSeed(f, 73))
	f.Add([]byte{1, 4, 1, 0, 0, 0, 1, 4, 2, 0, 0, 0, 2, 3, 'g', 'r', 'p'})
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodeGroupRef, encGroupRef, b)
		dataRequestRoundTrip(t, DecodeCreateConsumerGroupRequest, encCreateGroup, b)
	})
}

// FuzzDataReplies runs every client-side reply decoder of this half of the
// codec on the same input: none may panic, and what decodes must round-trip.
func FuzzDataReplies(f *testing.F) {
	for _, n := range []int{47, 48, 49, 54, 56, 62, 64, 67, 68, 69, 75, 76} {
		f.Add(dataVectorSeed(f, n))
	}
	for _, n := range []int{45, 55, 74} {
		if b := dataVectorSeed(f, n); b != nil {
			f.Add(frameBody(b)[4:])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRoundTrip(t, decStreamResponse, encStreamResponse, b)
		dataRoundTrip(t, DecodeStreams, encStreams, b)
		dataRoundTrip(t, decStreamDetailsFound, encStreamDetailsFound, b)
		dataRoundTrip(t, decTopicHeader, encTopicHeader, b)
		dataRoundTrip(t, decTopicDetailsFound, encTopicDetails, b)
		dataRoundTrip(t, DecodeTopics, encTopics, b)
		dataRoundTrip(t, DecodeSendConfirmations, encConfirmations, b)
		dataRoundTrip(t, DecodePolledMessages, encPolled, b)
		dataRoundTrip(t, decOffsetInfoFound, encOffsetInfo, b)
		dataRoundTrip(t, DecodeConsumerGroupResponse, encGroupResponse, b)
		dataRoundTrip(t, DecodeConsumerGroups, encGroups, b)
		dataRoundTrip(t, decGroupDetailsFound, encGroupDetails, b)
		dataRoundTrip(t, decAssignmentFound, encAssignment, b)
		dataRoundTrip(t, DecodeDescribeOptions, encDescribe, b)
	})
}

// encDescribe re-encodes decoded descriptors through a catalog of them.
func encDescribe(d []OptionDescriptor, w *Writer) {
	c := &Catalog{}
	for _, x := range d {
		c.Specs = append(c.Specs, OptionSpec{Key: x.Key, Kind: x.Kind, Default: x.Default, Description: x.Description})
	}
	EncodeDescribeOptions(w, c)
}

func FuzzDescribeOptionsRequest(f *testing.F) {
	f.Add([]byte{1})
	f.Add([]byte{3, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		scope, code := DecodeDescribeOptionsRequest(b)
		if code != OK {
			return
		}
		c, code := CatalogFor(scope)
		if code != OK || c.Scope != scope {
			t.Fatalf("scope %d decoded but has no catalog", scope)
		}
		w := &Writer{}
		EncodeDescribeOptionsRequest(w, scope)
		if w.Buf[0] != b[0] {
			t.Fatal("scope re-encodes differently")
		}
	})
}
