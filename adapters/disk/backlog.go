package disk

import "github.com/iggygo/iggy/io/storage"

// completionQueue is the FIFO of completions waiting for the reader. It is
// owned by dispatch; its storage is reused once drained, so a steady state
// allocates nothing, and it only grows as far as the reader falls behind
// (bounded by RequestsQueuedMax, asserted by dispatch).
type completionQueue struct {
	items []storage.Completion
	head  int
}

func (q *completionQueue) len() int { return len(q.items) - q.head }

func (q *completionQueue) push(c storage.Completion) { q.items = append(q.items, c) }

// front is the oldest completion; the zero value when empty (a select case
// evaluates it even when the case is disabled).
func (q *completionQueue) front() storage.Completion {
	if q.len() == 0 {
		return storage.Completion{}
	}
	return q.items[q.head]
}

func (q *completionQueue) pop() {
	q.items[q.head] = storage.Completion{} // drop the references (read data)
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
}
