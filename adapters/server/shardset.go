package server

import "sync"

// ConnectShards links the loops of one node's shards, given in shard
// order, each with an inbox of inboxCapacity hand-offs. One loop needs no
// links.
func ConnectShards(loops []*Loop, inboxCapacity int) {
	if len(loops) == 1 {
		return
	}
	all := newLinks(len(loops), inboxCapacity, shardRoute)
	for i, l := range loops {
		l.links = all[i]
	}
}

// RunShards runs every loop on its own goroutine until stop is closed or one
// of them fails; a failure (a Fatal of any shard) stops them all, and the
// first is returned once every loop has returned.
func RunShards(loops []*Loop, stop <-chan struct{}) error {
	halt := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(halt) }) }
	errs := make(chan error, len(loops))
	for _, l := range loops {
		go func() {
			err := l.Run(halt)
			end()
			errs <- err
		}()
	}
	go func() {
		select {
		case <-stop:
			end()
		case <-halt:
		}
	}()
	var first error
	for range loops {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
