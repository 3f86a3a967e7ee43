package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iggygo/iggy/wire"
)

// Admin moves (workload WorkloadAdmin): commands a 1,000-seed sweep of the
// heavy workload never sent, so their core paths were never entered
// (DESIGN.md "Simulator", What a sweep reaches): a password changed and
// permissions set on a churned user, a consumer group created on a churned
// topic and deleted again, and the reads an operator or SDK makes
// (statistics, clients, users, tokens, the cluster's metadata, option
// descriptions, the metadata change log). They ride the churn share, so
// the seeds that churn (every cluster seed, a quarter of swarm seeds) make
// them; each is marked by its answer, sim.churn.<command>.<status>, and a
// swarm sweep must see each answered OK (adminRequired).

// adminPercent is the share of churn moves that are admin moves.
const adminPercent = 25

// adminRequired are the admin moves' marks a swarm sweep must hit (the CI
// sweep's 150 swarm seeds too): each answered OK. A cluster sweep is not
// held to them: CI's 16 cluster seeds make a few dozen admin moves, and a
// group is deleted only after its client created it on a churned topic
// that still exists (once in 16 swarm seeds measured).
var adminRequired = []string{
	"sim.churn.ChangePassword.0", "sim.churn.UpdatePermissions.0",
	"sim.churn.CreateConsumerGroup.0", "sim.churn.DeleteConsumerGroup.0", "sim.churn.GetUsers.0",
	"sim.churn.GetStats.0", "sim.churn.GetClients.0", "sim.churn.GetMetadataChanges.0",
}

// adminOp draws one admin move; nil when it has nothing to act on yet.
func (w *World) adminOp(c *client) *op {
	ch := &c.churn
	switch w.rng.IntN(10) {
	case 0:
		if len(ch.users) == 0 {
			return nil
		}
		u := ch.users[w.rng.IntN(len(ch.users))]
		// The same password again: the churned user keeps the password
		// its later moves assume, and the core still hashes and applies it.
		return churnOpOf(wire.CmdChangePassword, "change-password "+u, wire.ChangePasswordRequest{
			UserID: wire.NamedID(u), CurrentPassword: "secret-" + u, NewPassword: "secret-" + u}.Encode)
	case 1:
		if len(ch.users) == 0 {
			return nil
		}
		u := ch.users[w.rng.IntN(len(ch.users))]
		p := &wire.Permissions{Global: wire.GlobalPermissions{ReadStreams: true, PollMessages: w.rng.IntN(2) == 0}}
		return churnOpOf(wire.CmdUpdatePermissions, "update-permissions "+u, wire.UpdatePermissionsRequest{
			UserID: wire.NamedID(u), Permissions: p}.Encode)
	case 2:
		if len(ch.topics) == 0 {
			return nil
		}
		t := ch.topics[w.rng.IntN(len(ch.topics))]
		c.names++
		g := [3]string{t[0], t[1], fmt.Sprintf("g%d-%d", c.idx, c.names)}
		ch.groups = append(ch.groups[max(0, len(ch.groups)-churnNamesMax+1):], g)
		return churnOpOf(wire.CmdCreateConsumerGroup, "create-group "+strings.Join(g[:], "/"), wire.CreateConsumerGroupRequest{
			StreamID: wire.NamedID(g[0]), TopicID: wire.NamedID(g[1]), Name: g[2]}.Encode)
	case 3:
		if len(ch.groups) == 0 {
			return nil
		}
		i := w.rng.IntN(len(ch.groups))
		g := ch.groups[i]
		ch.groups = slices.Delete(ch.groups, i, i+1)
		return churnOpOf(wire.CmdDeleteConsumerGroup, "delete-group "+strings.Join(g[:], "/"), wire.GroupRef{
			StreamID: wire.NamedID(g[0]), TopicID: wire.NamedID(g[1]), GroupID: wire.NamedID(g[2])}.Encode)
	case 4:
		return churnOpOf(wire.CmdGetStats, "get-stats", func(*wire.Writer) {})
	case 5:
		return churnOpOf(wire.CmdGetClients, "get-clients", func(*wire.Writer) {})
	case 6:
		return churnOpOf(wire.CmdGetMe, "get-me", func(*wire.Writer) {})
	case 7:
		cmd := []wire.Command{wire.CmdGetUsers, wire.CmdGetPersonalAccessTokens, wire.CmdGetClusterMetadata}[w.rng.IntN(3)]
		return churnOpOf(cmd, "read "+cmd.Name(), func(*wire.Writer) {})
	case 8:
		scope := []wire.OptionScope{wire.ScopeTopic, wire.ScopeStream, wire.ScopeUser}[w.rng.IntN(3)]
		return churnOpOf(wire.CmdDescribeOptions, "describe-options", func(wr *wire.Writer) { wire.EncodeDescribeOptionsRequest(wr, scope) })
	default:
		q := wire.ChangesRequest{Start: []wire.ChangeStart{wire.ChangeStartEarliest, wire.ChangeStartLatest,
			wire.ChangeStartCurrent}[w.rng.IntN(3)], Limit: uint32(1 + w.rng.IntN(100))}
		return churnOpOf(wire.CmdGetMetadataChanges, "metadata-changes", func(wr *wire.Writer) { wire.EncodeChangesRequest(wr, q) })
	}
}
