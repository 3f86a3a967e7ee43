package oracles

import (
	"strings"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func rec(seq, op uint64, kind string) wire.ChangeRecord {
	return wire.ChangeRecord{Seq: seq, Op: op, Kind: kind, Body: []byte(`{}`)}
}

// The change log oracle passes a follower that saw every committed record
// once and in order (an expired cursor skipping only to its anchor), and
// fails one that saw a record twice, skipped one, saw one the final log
// does not hold at its seq (an uncommitted change), or was told expired
// while nothing after its cursor was evicted. (covers MCL-4, MCL-9,
// MCL-21, MCL-23)
func TestCheckChanges(t *testing.T) {
	final := FinalChanges{Records: []wire.ChangeRecord{rec(3, 5, "b"), rec(4, 6, "c"), rec(5, 7, "d")}, Floor: 2}
	good := ChangeFollow{Pages: []ChangePage{
		{Earliest: true, Records: []wire.ChangeRecord{rec(1, 1, "x")}, Next: 1},
		{After: 1, Next: 1},
		{After: 4, Records: []wire.ChangeRecord{rec(5, 7, "d")}, Next: 5},
	}, Expired: []ChangeGap{{Cursor: 1, Anchor: 1}, {Cursor: 1, Anchor: 4}}, CaughtUp: 5}
	if err := CheckChanges(&good, final); err != nil {
		t.Fatalf("good follow: %v", err)
	}
	for _, tc := range []struct {
		name string
		f    ChangeFollow
		want string
	}{
		{"twice", ChangeFollow{Pages: []ChangePage{{Earliest: true, Records: []wire.ChangeRecord{rec(3, 5, "b")}, Next: 3},
			{After: 3, Records: []wire.ChangeRecord{rec(3, 5, "b")}, Next: 3}}}, "seen again"},
		{"skipped", ChangeFollow{Pages: []ChangePage{{Earliest: true, Records: []wire.ChangeRecord{rec(3, 5, "b")}, Next: 3},
			{After: 3, Records: []wire.ChangeRecord{rec(5, 7, "d")}, Next: 5}}}, "skipped"},
		{"cursor past its records", ChangeFollow{Pages: []ChangePage{{Earliest: true, Records: []wire.ChangeRecord{rec(3, 5, "b")}, Next: 4}}}, "returned a cursor"},
		{"uncommitted", ChangeFollow{Pages: []ChangePage{{Earliest: true, Records: []wire.ChangeRecord{rec(3, 5, "b"), rec(4, 6, "lost")}, Next: 4}}}, "final log holds"},
		{"expired undeserved", ChangeFollow{Expired: []ChangeGap{{Cursor: 3, Anchor: 5}}}, "no record after it"},
	} {
		err := CheckChanges(&tc.f, final)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
