package main

import (
	"github.com/iggygo/iggy/adapters/crypto"
	"github.com/iggygo/iggy/adapters/disk"
	"github.com/iggygo/iggy/adapters/extauth"
	"github.com/iggygo/iggy/adapters/snapshot"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// tokens is the node's Crypto in production: random tokens, BLAKE3 hashes.
type tokens struct{}

func (tokens) NewToken() string              { return crypto.NewToken() }
func (tokens) HashToken(token string) string { return crypto.HashToken(token) }
func (tokens) Random(b []byte)               { crypto.Random(b) }
func (tokens) NewKey(b []byte)               { crypto.Random(b) }

// runJob does the node's compute jobs on a worker: argon2id hashes and
// checks, diagnostic archives and flight recorder dumps. A check without a
// hash (a user that does not exist) runs against standIn, a hash of the
// parameters of real ones. External auth callouts go to the service of
// [external_auth].
func runJob(r compute.Request, src snapshot.Sources, standIn string, callouts *extauth.Caller, box *flightBox) compute.Result {
	switch r.Kind {
	case compute.KindExternalAuth:
		// The node asks only when external_auth is enabled (ExternalAuthCalloutsMax).
		return callouts.Run(r)
	case compute.KindFlightDump:
		return box.dumpJob(r)
	case compute.KindHashPassword:
		h, err := crypto.HashPassword(r.Password)
		if err != nil {
			// Only a broken random source fails here; no user input can.
			panic("argon2id hash: " + err.Error())
		}
		return compute.Result{ID: r.ID, Data: []byte(h)}
	case compute.KindVerifyPassword:
		if r.Hash == "" {
			_, _ = crypto.VerifyPassword(standIn, r.Password)
			return compute.Result{ID: r.ID, Code: uint32(wire.InvalidCredentials)}
		}
		if ok, _ := crypto.VerifyPassword(r.Hash, r.Password); ok {
			return compute.Result{ID: r.ID}
		}
		return compute.Result{ID: r.ID, Code: uint32(wire.InvalidCredentials)}
	default:
		return snapshot.Build(r, src)
	}
}

// diskAdapter runs the node's requests on the real disk. The disk's queue
// bound (diskRequestsQueuedMax) is far above what the node's own bounds let
// it submit, so a refusal is a bug in those bounds and stops the process.
type diskAdapter struct{ d *disk.Disk }

func (a diskAdapter) Submit(reqs ...storage.Request) {
	if err := a.d.Submit(reqs...); err != nil {
		panic("disk queue overflow: " + err.Error())
	}
}

func (a diskAdapter) Completions() <-chan storage.Completion { return a.d.Completions() }
