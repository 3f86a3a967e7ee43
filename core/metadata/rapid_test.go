package metadata

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/iggygo/iggy/wire"
)

// The generators draw from a small universe of names, ids and clients so
// that random commands often hit existing resources and collide.

// universe is how many distinct names (and ids) each kind of resource uses.
const universe = 2

func drawIdent(t *rapid.T, label, prefix string) wire.Identifier {
	if rapid.Bool().Draw(t, label+"-numeric") {
		return num(rapid.Uint32Range(0, universe).Draw(t, label))
	}
	return named(drawName(t, label, prefix))
}

func drawName(t *rapid.T, label, prefix string) string {
	return fmt.Sprintf("%s%d", prefix, rapid.IntRange(0, universe).Draw(t, label))
}

// drawCaller is root most of the time, so that most commands get past
// authorization, and otherwise one of the first users.
func drawCaller(t *rapid.T) uint32 {
	if rapid.IntRange(0, 9).Draw(t, "as-root") < 6 {
		return RootUserID
	}
	return rapid.Uint32Range(1, 4).Draw(t, "caller")
}

func drawClient(t *rapid.T) ClientID { return client(rapid.Uint64Range(1, 4).Draw(t, "client")) }

func drawPermissions(t *rapid.T) *wire.Permissions {
	if rapid.IntRange(0, 3).Draw(t, "no-perms") == 0 {
		return nil
	}
	b := func(l string) bool { return rapid.IntRange(0, 3).Draw(t, l) == 0 }
	p := &wire.Permissions{Global: wire.GlobalPermissions{ManageStreams: b("ms"), ReadStreams: b("rs"),
		ManageTopics: b("mt"), ReadTopics: b("rt"), PollMessages: b("pm"), SendMessages: b("sm"), ManageUsers: b("mu")}}
	for s := uint32(0); s < 2; s++ {
		if b("stream-grant") {
			sp := wire.StreamPermissions{ManageStream: b("s-ms"), ReadTopics: b("s-rt"), ManageTopics: b("s-mt")}
			if b("topic-grant") {
				sp.Topics = map[uint32]wire.TopicPermissions{rapid.Uint32Range(0, 2).Draw(t, "tid"): {ManageTopic: b("t-mt"), ReadTopic: b("t-rt")}}
			}
			if p.Streams == nil {
				p.Streams = map[uint32]wire.StreamPermissions{}
			}
			p.Streams[s] = sp
		}
	}
	return p
}

func drawOptions(t *rapid.T, label string) []byte {
	keys := []string{keyMessageExpiry, keyMaxTopicSize, keySegmentSize, "compression_algorithm", "bogus"}
	var opts []option
	for i, k := range keys {
		if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("%s-%d", label, i)) == 0 {
			opts = append(opts, opt(k, kindUint64, u64(rapid.SampledFrom([]uint64{0, 1 << 10, 1 << 20, 1 << 30, ^uint64(0)}).Draw(t, "v"))))
		}
	}
	sorted, _ := CanonicalOptions(encodeOptions(opts))
	return sorted
}

func drawTopicCmd(t *rapid.T, s, tp wire.Identifier) Command {
	switch rapid.IntRange(0, 6).Draw(t, "topic-cmd") {
	case 0:
		c := newTopic(s, drawName(t, "tname", "t"), rapid.Uint32Range(0, 5).Draw(t, "parts"))
		c.ExplicitOptions, c.DerivedOptions = drawOptions(t, "explicit"), drawOptions(t, "derived")
		c.ResizePolicy = ResizePolicy(rapid.IntRange(0, 1).Draw(t, "resize"))
		return c
	case 1:
		return &DeleteTopic{Stream: s, Topic: tp}
	case 2:
		return &PurgeTopic{Stream: s, Topic: tp}
	case 3:
		return &CreatePartitions{Stream: s, Topic: tp, Count: rapid.Uint32Range(0, 4).Draw(t, "n")}
	case 4:
		return &DeletePartitions{Stream: s, Topic: tp, Count: rapid.Uint32Range(0, 4).Draw(t, "n")}
	case 5:
		return &TruncatePartition{Stream: s, Topic: tp, Partition: rapid.Uint32Range(0, 5).Draw(t, "p"), Watermark: 7}
	}
	u := &UpdateResource{Scope: ScopeTopic, Stream: s, Topic: tp, Name: drawName(t, "tname", "t"), Set: drawOptions(t, "set")}
	if rapid.IntRange(0, 3).Draw(t, "with-reset") == 0 {
		u.Reset = drawOptions(t, "reset")
	}
	return u
}

func drawGroupCmd(t *rapid.T, s, tp wire.Identifier) Command {
	g := drawIdent(t, "group", "g")
	switch rapid.IntRange(0, 5).Draw(t, "group-cmd") {
	case 0:
		return &CreateConsumerGroup{Stream: s, Topic: tp, Name: drawName(t, "gname", "g")}
	case 1:
		return &DeleteConsumerGroup{Stream: s, Topic: tp, Group: g}
	case 2:
		unsettled := rapid.SliceOfNDistinct(rapid.Uint32Range(0, 8), 0, 3, func(v uint32) uint32 { return v }).Draw(t, "unsettled")
		var sorted []uint32
		for _, v := range unsettled {
			sorted = insertSorted(sorted, v)
		}
		return &JoinConsumerGroup{Stream: s, Topic: tp, Group: g, Client: drawClient(t), Unsettled: sorted}
	case 3:
		return &LeaveConsumerGroup{Stream: s, Topic: tp, Group: g, Client: drawClient(t)}
	case 4:
		return &RemoveMember{Client: drawClient(t)}
	}
	return &CompleteRevocation{Stream: s, Topic: tp, Group: g, Partition: rapid.Uint32Range(0, 8).Draw(t, "p")}
}

func drawUserCmd(t *rapid.T) Command {
	u := drawIdent(t, "user", "user")
	switch rapid.IntRange(0, 7).Draw(t, "user-cmd") {
	case 0:
		return &CreateUser{Username: drawName(t, "uname", "user"), PasswordHash: "h", Status: UserStatus(rapid.IntRange(0, 2).Draw(t, "st")), Permissions: drawPermissions(t)}
	case 1:
		return &UpdateUser{User: u, Username: drawName(t, "uname", "user"), Status: UserStatus(rapid.IntRange(0, 3).Draw(t, "st"))}
	case 2:
		return &DeleteUser{User: u}
	case 3:
		return &ChangePassword{User: u, ExpectedHash: "h", PasswordHash: "h"}
	case 4:
		return &UpdatePermissions{User: u, Permissions: drawPermissions(t)}
	case 5:
		return &CreatePersonalAccessToken{Name: drawName(t, "pat", "pat"), TokenHash: fmt.Sprintf("hash%d", rapid.IntRange(0, 20).Draw(t, "hash")),
			LifetimeMicros: rapid.SampledFrom([]uint64{0, 500, 5000, ^uint64(0)}).Draw(t, "life")}
	case 6:
		return &DeletePersonalAccessToken{Name: drawName(t, "pat", "pat")}
	}
	return &DeleteExpiredTokens{}
}

func drawCommand(t *rapid.T) Command {
	s, tp := drawIdent(t, "stream", "s"), drawIdent(t, "topic", "t")
	switch rapid.IntRange(0, 6).Draw(t, "area") {
	case 0:
		switch rapid.IntRange(0, 5).Draw(t, "stream-cmd") {
		case 0, 1, 2:
			return &CreateStream{Name: drawName(t, "sname", "s")}
		case 3:
			return &DeleteStream{Stream: s}
		case 4:
			return &PurgeStream{Stream: s}
		}
		return &UpdateStream{Stream: s, Name: drawName(t, "sname", "s")}
	case 1, 2:
		return drawTopicCmd(t, s, tp)
	case 3, 4:
		return drawGroupCmd(t, s, tp)
	}
	return drawUserCmd(t)
}

// TestRandomSequencesAreDeterministic applies the same random op sequence to
// two states (Go randomizes map order, so any map order that leaked into a
// result would show) and checks results, invariants and snapshots agree.
// covers MCL-4, ROOT-6
func TestRandomSequencesAreDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := New(), New()
		var op uint64
		apply := func(ctx Ctx, cmd Command) {
			back, err := Decode(Encode(cmd))
			if err != nil {
				t.Fatalf("decode %T: %v", cmd, err)
			}
			ra, rb := a.Apply(ctx, cmd), b.Apply(ctx, back)
			if ra.Code != rb.Code || !reflect.DeepEqual(ra.Effects, rb.Effects) {
				t.Fatalf("op %d %T: results differ: %+v vs %+v", ctx.Op, cmd, ra, rb)
			}
			if err := a.check(); err != nil {
				t.Fatalf("op %d %T: %v", ctx.Op, cmd, err)
			}
			snap := a.Snapshot()
			if !bytes.Equal(snap, b.Snapshot()) {
				t.Fatalf("op %d %T: snapshots differ", ctx.Op, cmd)
			}
			r, err := Restore(snap)
			if err != nil || !bytes.Equal(r.Snapshot(), snap) {
				t.Fatalf("op %d %T: restore: %v", ctx.Op, cmd, err)
			}
		}
		for _, cmd := range randomSetup(t) {
			op++
			apply(Ctx{Op: op}, cmd)
		}
		steps := rapid.IntRange(1, 100).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			op++
			apply(Ctx{Op: op, NowMicros: op * 1000, UserID: drawCaller(t)}, drawCommand(t))
		}
	})
}

// randomSetup creates root, every stream and topic name of the universe
// (each topic with a group) and a few users, so random commands mostly hit.
func randomSetup(t *rapid.T) []Command {
	cmds := []Command{&CreateUser{Username: "iggy", PasswordHash: "h"}}
	for s := 0; s <= universe; s++ {
		cmds = append(cmds, &CreateStream{Name: fmt.Sprintf("s%d", s)})
		for tp := 0; tp <= universe; tp++ {
			c := newTopic(num(uint32(s)), fmt.Sprintf("t%d", tp), rapid.Uint32Range(0, 4).Draw(t, "parts"))
			cmds = append(cmds, c, &CreateConsumerGroup{Stream: num(uint32(s)), Topic: num(uint32(tp)), Name: "g0"})
		}
	}
	for u := 1; u <= 4; u++ {
		cmds = append(cmds, &CreateUser{Username: fmt.Sprintf("user%d", u), PasswordHash: "h", Permissions: drawPermissions(t)})
	}
	return cmds
}
