package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// Password logins wait in a queue per source address and take turns: each
// argon2id check is the next eligible login of the next source in round
// robin, sources with no failure on record before the others, so a flood
// of bad logins from some sources delays a login from another by at most
// the checks already out, not by the flood (issue 11 item 4: a flood used
// to fill every job slot, and good logins got eviction 12). At most
// loginChecksInFlightMax checks are handed out, so the workers' queue
// stays short; a source has at most loginChecksPerSourceMax of them. A
// login is eligible once its source's backoff ended and, if its source has
// failed before, its username's (loginbackoff.go): a source with no
// failure on record is never held by a username's backoff, so a flood
// against a username cannot lock its owner out from elsewhere.
const (
	loginChecksInFlightMax    = 2 // the server's job workers: no check queues behind another
	loginChecksPerSourceMax   = 1
	loginsWaitingMax          = 1024
	loginsWaitingPerSourceMax = 64
)

// pendingLogin is a password login waiting for its check.
type pendingLogin struct {
	conn *conn
	h    wire.RequestHeader
	l    wire.LoginPassword
	then func(userID uint32, reason wire.EvictionReason)
}

// sourceLogins are one source's waiting logins, oldest first.
type sourceLogins struct {
	waiting  []*pendingLogin
	checking int
}

// logins is the front's admission of password logins.
type logins struct {
	sources  map[string]*sourceLogins
	turns    []string // sources with waiting logins, in round-robin order
	cursor   int      // the source whose turn is next
	waiting  int
	checking int
	wakeTick uint64 // no waiting login is eligible before this tick
	bySource *failureTable
	byUser   *failureTable
}

func newLogins() *logins {
	return &logins{
		sources:  map[string]*sourceLogins{},
		bySource: newFailureTable(loginSourcesMax, loginSourceBackoffTicksMax),
		byUser:   newFailureTable(loginUsernamesMax, loginUserBackoffTicksMax),
	}
}

// checkPassword queues c's password login; then gets the user or the
// eviction reason. A full queue answers 58 (nothing was committed; the
// client may try again).
func (n *Node) checkPassword(c *conn, h wire.RequestHeader, l wire.LoginPassword, then func(uint32, wire.EvictionReason)) {
	q := n.logins
	src := q.sources[c.source]
	if q.waiting >= loginsWaitingMax || src != nil && len(src.waiting) >= loginsWaitingPerSourceMax {
		n.cfg.Marks.Hit("node.login.queue_full")
		n.reject(c, h, wire.TransientNotAccepted)
		return
	}
	if src == nil {
		src = &sourceLogins{}
		q.sources[c.source] = src
	}
	if len(src.waiting) == 0 {
		q.turns = append(q.turns, c.source)
	}
	src.waiting = append(src.waiting, &pendingLogin{conn: c, h: h, l: l, then: then})
	q.waiting++
	q.wakeTick = 0
	n.startLoginChecks()
}

// startLoginChecks hands out checks while there is room and a login is eligible.
func (n *Node) startLoginChecks() {
	q := n.logins
	for q.waiting > 0 && q.checking < loginChecksInFlightMax && n.jobsBusy() < jobsInFlightMax {
		if n.now.Ticks < q.wakeTick {
			return
		}
		p, source, ok := n.nextLogin()
		if !ok {
			return
		}
		n.startLoginCheck(p, source)
	}
}

// nextLogin takes the oldest eligible login of the next source in turn,
// sources with no failure on record first: a flood's sources have failed,
// so a client that never failed (or logged in since) waits for no turn of
// theirs. With none eligible it sets wakeTick to the earliest tick one may be.
func (n *Node) nextLogin() (*pendingLogin, string, bool) {
	q, now := n.logins, n.now.Ticks
	wake := uint64(0)
	for _, cleanOnly := range []bool{true, false} {
		for i := range len(q.turns) {
			t := (q.cursor + i) % len(q.turns)
			source := q.turns[t]
			src := q.sources[source]
			if cleanOnly && q.bySource.lookup(source, now) != nil || src.checking >= loginChecksPerSourceMax {
				continue // a check of a source at its limit will end and wake the queue
			}
			if until := n.loginBlockedUntil(source, src.waiting[0].l.Username); until > now {
				n.cfg.Marks.Hit("node.login.backoff_held")
				if wake == 0 || until < wake {
					wake = until
				}
				continue
			}
			p := src.waiting[0]
			q.cursor = t + 1
			src.checking++ // before the source may leave the turns
			q.checking++
			n.removeWaiting(source, 0)
			return p, source, true
		}
	}
	q.wakeTick = wake
	return nil, "", false
}

// loginBlockedUntil is the tick a login of username from source waits for.
func (n *Node) loginBlockedUntil(source, username string) uint64 {
	q, now := n.logins, n.now.Ticks
	until := q.bySource.blockedUntil(source, now)
	if q.bySource.lookup(source, now) != nil {
		until = max(until, q.byUser.blockedUntil(username, now))
	}
	return until
}

// removeWaiting drops source's waiting login i, and the source from the
// turns once it has none.
func (n *Node) removeWaiting(source string, i int) {
	q := n.logins
	src := q.sources[source]
	src.waiting = append(src.waiting[:i], src.waiting[i+1:]...)
	q.waiting--
	if len(src.waiting) > 0 {
		return
	}
	for t, s := range q.turns {
		if s == source {
			q.turns = append(q.turns[:t], q.turns[t+1:]...)
			if q.cursor > t {
				q.cursor--
			}
			break
		}
	}
	if src.checking == 0 {
		delete(q.sources, source)
	}
}

// startLoginCheck hands out p's argon2id check. An unknown user's check
// carries no hash (the adapter's stand-in of the same cost).
func (n *Node) startLoginCheck(p *pendingLogin, source string) {
	u, known := n.meta.User(wire.NamedID(p.l.Username))
	if !known && n.cfg.ExternalAuthCalloutsMax > 0 && p.l.LengthsValid() {
		n.loginChecked(source) // a callout holds no check slot: it waits on the network
		n.callOut(p, source)
		return
	}
	hash := ""
	if known {
		hash = u.PasswordHash
	}
	job := compute.Request{Kind: compute.KindVerifyPassword, Password: p.l.Password, Hash: hash}
	started := n.startJob(job, func(res compute.Result) {
		n.loginChecked(source)
		now := n.now.Ticks
		if res.Code == 0 && known && p.l.LengthsValid() && u.Status == metadata.UserActive {
			// The source proved it knows the password; the username keeps
			// its record, or any success would reopen it to a flood.
			n.logins.bySource.forget(source)
			p.then(u.ID, 0)
		} else {
			n.logins.bySource.failed(source, now)
			n.logins.byUser.failed(p.l.Username, now)
			p.then(0, wire.EvictInvalidCredentials)
		}
		n.startLoginChecks()
	})
	assert.That(started, "a login check found no job slot after the queue saw one")
}

// loginChecked ends one check of source.
func (n *Node) loginChecked(source string) {
	q := n.logins
	src := q.sources[source]
	src.checking--
	q.checking--
	q.wakeTick = 0 // a slot of source is free again
	if src.checking == 0 && len(src.waiting) == 0 {
		delete(q.sources, source)
	}
}

// dropLogin forgets c's waiting login when c closes.
func (n *Node) dropLogin(c *conn) {
	src, ok := n.logins.sources[c.source]
	if !ok {
		return
	}
	for i, p := range src.waiting {
		if p.conn == c {
			n.removeWaiting(c.source, i)
			return
		}
	}
}

// tickLogins starts the checks whose backoff ended.
func (n *Node) tickLogins() {
	if n.logins.waiting > 0 {
		n.startLoginChecks()
	}
}
