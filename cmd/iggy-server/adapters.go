package main

import (
	"github.com/iggygo/iggy/adapters/crypto"
	"github.com/iggygo/iggy/adapters/disk"
	"github.com/iggygo/iggy/io/storage"
)

// passwords is the node's Crypto in production: argon2id and BLAKE3.
type passwords struct{}

func (passwords) HashPassword(p string) string {
	h, err := crypto.HashPassword(p)
	if err != nil {
		// Only a broken random source fails here; no user input can.
		panic("argon2id hash: " + err.Error())
	}
	return h
}

func (passwords) VerifyPassword(hash, p string) bool {
	ok, _ := crypto.VerifyPassword(hash, p)
	return ok
}

func (passwords) NewToken() string              { return crypto.NewToken() }
func (passwords) HashToken(token string) string { return crypto.HashToken(token) }

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
