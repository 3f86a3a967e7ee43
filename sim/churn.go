package sim

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// churnNamesMax bounds the names a client keeps of things it churns.
const churnNamesMax = 8

// churn is what one client created to update and delete again: streams
// ("x…"), topics in them, users ("u…") and tokens ("k…"). The durability
// oracle does not follow these names (a delete may have removed any of
// them; reads filter them out); what checks them is convergence: every
// replica must apply the same updates and deletes to the same state.
type churn struct {
	streams []string
	topics  [][2]string // stream, topic
	users   []string
	tokens  []string
	groups  [][3]string // stream, topic, group (admin.go)
}

// churnName is a name the durability oracle ignores.
func churnName(s string) bool { return len(s) > 0 && (s[0] == 'x' || s[0] == 'y') }

func remember(names []string, n string) []string {
	if len(names) == churnNamesMax {
		names = names[1:]
	}
	return append(names, n)
}

// churnOp draws one update, delete or session op; nil when the drawn
// kind has nothing to act on yet (the caller draws a plain metadata op).
func (w *World) churnOp(c *client) *op {
	ch := &c.churn
	pick := func(names []string) string { return names[w.rng.IntN(len(names))] }
	name := func(prefix string) string {
		c.names++
		return fmt.Sprintf("%s%d-%d", prefix, c.idx, c.names)
	}
	if w.knobs.Workload >= WorkloadAdmin && w.rng.IntN(100) < adminPercent {
		if o := w.adminOp(c); o != nil {
			return o
		}
	}
	kinds := 13
	if w.knobs.Shards > 1 {
		kinds = 15 // recreates (recreate.go); one shard draws as it did
	}
	switch r := w.rng.IntN(kinds); {
	case r == 0:
		n := name("x")
		ch.streams = remember(ch.streams, n)
		return churnOpOf(wire.CmdCreateStream, "create-stream "+n, wire.CreateStreamRequest{Name: n}.Encode)
	case r == 1 && len(ch.streams) > 0:
		old, n := pick(ch.streams), name("x")
		ch.streams = remember(ch.streams, n)
		return churnOpOf(wire.CmdUpdateResource, "rename-stream "+old+" "+n, wire.UpdateResourceRequest{
			Scope: wire.ScopeStream, Stream: wire.NamedID(old), Set: nameOption("name", n)}.Encode)
	case r == 2 && len(ch.streams) > 0:
		s := pick(ch.streams)
		return churnOpOf(wire.CmdDeleteStream, "delete-stream "+s, wire.StreamRef{StreamID: wire.NamedID(s)}.Encode)
	case r == 3 && len(ch.streams) > 0:
		s, t := pick(ch.streams), name("y")
		ch.topics = append(ch.topics[max(0, len(ch.topics)-churnNamesMax+1):], [2]string{s, t})
		return churnOpOf(wire.CmdCreateTopic, "create-topic "+s+"/"+t, wire.CreateTopicRequest{
			StreamID: wire.NamedID(s), Name: t, PartitionsCount: 0}.Encode) // partitions come by create-partitions
	case r == 4 && len(ch.topics) > 0:
		i := w.rng.IntN(len(ch.topics))
		t, n := ch.topics[i], name("y")
		ch.topics[i][1] = n
		return churnOpOf(wire.CmdUpdateResource, "rename-topic "+t[0]+"/"+t[1]+" "+n, wire.UpdateResourceRequest{
			Scope: wire.ScopeTopic, Stream: wire.NamedID(t[0]), Topic: wire.NamedID(t[1]), Set: nameOption("name", n)}.Encode)
	case r == 5 && len(ch.topics) > 0:
		t := ch.topics[w.rng.IntN(len(ch.topics))]
		return churnOpOf(wire.CmdDeleteTopic, "delete-topic "+t[0]+"/"+t[1],
			wire.TopicRef{StreamID: wire.NamedID(t[0]), TopicID: wire.NamedID(t[1])}.Encode)
	case (r == 6 || r == 7) && len(ch.topics) > 0:
		t := ch.topics[w.rng.IntN(len(ch.topics))]
		cmd, what := wire.CmdCreatePartitions, "create-partitions "
		if r == 7 {
			cmd, what = wire.CmdDeletePartitions, "delete-partitions "
		}
		return churnOpOf(cmd, what+t[0]+"/"+t[1], wire.PartitionsRequest{StreamID: wire.NamedID(t[0]),
			TopicID: wire.NamedID(t[1]), PartitionsCount: uint32(1 + w.rng.IntN(2))}.Encode)
	case r == 8:
		u := name("u")
		ch.users = remember(ch.users, u)
		return churnOpOf(wire.CmdCreateUser, "create-user "+u, wire.CreateUserRequest{
			Username: u, Password: "secret-" + u, Status: wire.UserStatusActive}.Encode)
	case r == 9 && len(ch.users) > 0:
		u := pick(ch.users)
		status := []string{"active", "inactive"}[w.rng.IntN(2)]
		return churnOpOf(wire.CmdUpdateResource, "update-user "+u+" "+status, wire.UpdateResourceRequest{
			Scope: wire.ScopeUser, User: wire.NamedID(u), Set: nameOption("status", status)}.Encode)
	case r == 10 && len(ch.users) > 0:
		u := pick(ch.users)
		return churnOpOf(wire.CmdDeleteUser, "delete-user "+u, func(wr *wire.Writer) { wr.Identifier(wire.NamedID(u)) })
	case r == 11:
		if len(ch.tokens) > 0 && w.rng.IntN(2) == 0 {
			k := pick(ch.tokens)
			return churnOpOf(wire.CmdDeletePersonalAccessToken, "delete-token "+k,
				func(wr *wire.Writer) { wire.EncodeDeletePAT(wr, k) })
		}
		k := name("k")
		ch.tokens = remember(ch.tokens, k)
		return churnOpOf(wire.CmdCreatePersonalAccessToken, "create-token "+k,
			wire.CreatePATRequest{Name: k, Expiry: wire.PATExpiryNever}.Encode)
	case r >= 13:
		return w.recreateOp(c)
	case r == 12:
		o := churnOpOf(wire.CmdLogoutUser, "logout", func(*wire.Writer) {})
		o.kind = opLogout
		return o
	}
	return nil
}

func churnOpOf(code wire.Command, what string, body func(*wire.Writer)) *op {
	return &op{kind: opChurn, code: code, stream: what, body: encode(body)}
}

// settleChurn accepts any answer but a malformed request or an unknown
// command: whether a churned name still exists is the replicas' business
// (convergence checks they agree). A logout ends the session: the client
// logs in again under its id.
func (w *World) settleChurn(a *attempt, o *op, status wire.Code) {
	switch status {
	case wire.InvalidCommand, wire.FeatureUnavailable: // (an eviction settles as 40: judged by its reason)
		w.fail("protocol", fmt.Sprintf("%s answered %d %s", o, status, status.Name()))
		return
	}
	w.marks.Hit(fmt.Sprintf("sim.churn.%s.%d", o.code.Name(), uint32(status)))
	w.event("client %d: %s answered %d after %d tries", a.link.client.idx, o, status, o.tries)
	if o.kind == opLogout && status == wire.OK {
		c := a.link.client
		if c.link == a.link {
			c.bound = false
		}
	}
}

// nameOption is a set block of one string key (name, username, status).
func nameOption(key, value string) wire.Options {
	return wire.Options{{Key: key, Kind: wire.KindString, Value: []byte(value)}}
}
