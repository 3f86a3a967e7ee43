package client

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/iggygo/iggy/wire"
)

// clusterAttemptsMax bounds the nodes one Cluster call tries: a refusal
// 89 (NotPrimary) looks the route up again, a dead connection moves to
// the next node. A view change settles within a few attempts; past the
// bound the last error is returned.
const clusterAttemptsMax = 16

// Cluster is a client of a replica set, as the routing SDKs are: one
// connection per node, each logged in as the same user; a partition's
// sends and polls go to the primary of its group, looked up with
// PartitionRoutes (105) and looked up again when a node answers 89
// (NotPrimary) or its connection fails. Metadata requests may go to any
// node: a backup forwards them to the metadata primary.
//
// The caller gives the nodes' addresses in replica-id order, as a roster
// lists them: protocol 0.12's GetClusterMetadata records carry no replica
// id (ours add it in a trailer, wire.ClusterMetadata.Replicas, which other
// servers do not send).
type Cluster struct {
	opts               Options
	addrs              []string // by replica id
	username, password string

	mu     sync.Mutex
	conns  []*Client              // by replica id; nil until dialled, or after a failure
	routes map[partitionKey]uint8 // partition -> its primary's replica id
	next   int                    // the node tried first when no route is known
}

// partitionKey names a partition as a Cluster's calls do.
type partitionKey struct {
	stream, topic wire.Identifier
	partition     uint32
}

// NewCluster makes a client of the nodes at addrs (in replica-id order);
// it connects to a node when a call first needs it.
func NewCluster(addrs []string, username, password string, opts Options) *Cluster {
	return &Cluster{opts: opts, addrs: addrs, username: username, password: password,
		conns: make([]*Client, len(addrs)), routes: map[partitionKey]uint8{}}
}

// Close closes every connection.
func (k *Cluster) Close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, c := range k.conns {
		if c != nil {
			c.Close()
			k.conns[i] = nil
		}
	}
}

// Node is the logged-in connection to replica id, dialled if need be.
func (k *Cluster) Node(id int) (*Client, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nodeLocked(id)
}

func (k *Cluster) nodeLocked(id int) (*Client, error) {
	if id < 0 || id >= len(k.addrs) {
		return nil, fmt.Errorf("%w: replica %d of %d", ErrInvalidArgument, id, len(k.addrs))
	}
	if c := k.conns[id]; c != nil {
		return c, nil
	}
	c, err := Dial(context.Background(), k.addrs[id], k.opts)
	if err != nil {
		return nil, err
	}
	if _, err := c.LoginUser(k.username, k.password); err != nil {
		c.Close()
		return nil, fmt.Errorf("iggy: login on replica %d (%s): %w", id, k.addrs[id], err)
	}
	k.conns[id] = c
	return c, nil
}

// drop forgets a connection that failed, so the next call dials again.
func (k *Cluster) drop(id int, c *Client) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conns[id] == c {
		c.Close()
		k.conns[id] = nil
	}
}

// Any runs fn on a reachable node, trying each in turn from the last that
// answered; a server refusal is returned as it is, a connection failure
// moves on. For metadata requests and reads of metadata.
func (k *Cluster) Any(fn func(c *Client) error) error {
	var last error
	for range clusterAttemptsMax {
		id := k.pick()
		c, err := k.Node(id)
		if err == nil {
			if err = fn(c); err == nil || !connectionFailed(err) {
				return err
			}
			k.drop(id, c)
		}
		last = err
		k.advance(id)
	}
	return last
}

// pick is the node to try when nothing says which.
func (k *Cluster) pick() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.next
}

// advance moves past a node that failed.
func (k *Cluster) advance(failed int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.next == failed {
		k.next = (failed + 1) % len(k.addrs)
	}
}

// connectionFailed tells a failed connection (move to another node) from a
// server's answer.
func connectionFailed(err error) bool {
	var refusal *Error
	var evicted *EvictedError
	return !errors.As(err, &refusal) && !errors.As(err, &evicted)
}

// notPrimary reports the refusal that asks for a route lookup.
func notPrimary(err error) bool {
	var refusal *Error
	return errors.As(err, &refusal) && refusal.Code == wire.NotPrimary
}

// OnPartition runs fn on the primary of a partition, following 89 and
// failed connections as the type's comment says. stream and topic must
// name the same partition on every call (use one form of identifier).
func (k *Cluster) OnPartition(stream, topic wire.Identifier, partition uint32, fn func(c *Client) error) error {
	key := partitionKey{stream: stream, topic: topic, partition: partition}
	var last error
	for range clusterAttemptsMax {
		id := k.routeOf(key)
		c, err := k.Node(id)
		if err == nil {
			err = fn(c)
			switch {
			case err == nil || !connectionFailed(err) && !notPrimary(err):
				return err
			case notPrimary(err):
				k.lookUp(c, stream, topic, key)
				last = err
				continue
			}
			k.drop(id, c)
		}
		last = err
		k.forget(key, id)
	}
	return last
}

// routeOf is the known primary of key, or the node to try.
func (k *Cluster) routeOf(key partitionKey) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r, ok := k.routes[key]; ok && int(r) < len(k.addrs) {
		return int(r)
	}
	return k.next
}

// forget drops key's route to a node that failed, and tries the next node.
func (k *Cluster) forget(key partitionKey, failed int) {
	k.mu.Lock()
	delete(k.routes, key)
	k.mu.Unlock()
	k.advance(failed)
}

// lookUp asks c for the topic's routes and records them; the node that
// answered 89 may itself lag, in which case the next 89 asks again.
func (k *Cluster) lookUp(c *Client, stream, topic wire.Identifier, key partitionKey) {
	routes, err := c.PartitionRoutes(stream, topic)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		delete(k.routes, key)
		k.next = (k.next + 1) % len(k.addrs)
		return
	}
	for _, rt := range routes {
		k.routes[partitionKey{stream: key.stream, topic: key.topic, partition: rt.PartitionID}] = rt.Primary
	}
	if r, ok := k.routes[key]; !ok || int(r) >= len(k.addrs) {
		k.next = (k.next + 1) % len(k.addrs)
	}
}

// SendMessages sends msgs to a partition through its primary and returns
// the offset of the first. A batch whose connection failed after it was
// written may have been committed: sent again it is stored twice (the
// protocol cannot tell), as with any client.
func (k *Cluster) SendMessages(stream, topic wire.Identifier, partition uint32, msgs []Message) (uint64, error) {
	var offset uint64
	err := k.OnPartition(stream, topic, partition, func(c *Client) error {
		var err error
		offset, err = c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: partition}, msgs)
		return err
	})
	return offset, err
}

// PollMessages polls a partition through its primary (PollMessages's
// arguments, with the partition required).
func (k *Cluster) PollMessages(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32,
	strategy wire.PollingKind, value uint64, count uint32, autoCommit bool) (uint64, []ReceivedMessage, error) {
	var current uint64
	var msgs []ReceivedMessage
	err := k.OnPartition(stream, topic, partition, func(c *Client) error {
		var err error
		current, msgs, err = c.PollMessages(consumer, stream, topic, &partition, strategy, value, count, autoCommit)
		return err
	})
	return current, msgs, err
}

// MetadataLeader is the replica id of the node a reachable node names
// Leader in its cluster metadata (the metadata group's primary), or -1
// while it knows none; records are taken in replica-id order.
func (k *Cluster) MetadataLeader() (int, error) {
	leader := -1
	err := k.Any(func(c *Client) error {
		m, err := c.GetClusterMetadata()
		for i, n := range m.Nodes {
			if n.Role == wire.ClusterRoleLeader {
				leader = i
				if m.Replicas {
					leader = int(n.ReplicaID)
				}
			}
		}
		return err
	})
	return leader, err
}

// PrimaryAddr is the address of the node PartitionRoutes (asked of any
// node) names the partition's primary, for a caller that keeps its own
// connection to it (iggy-bench's actors); that caller follows no later
// view change.
func (k *Cluster) PrimaryAddr(stream, topic wire.Identifier, partition uint32) (string, error) {
	primary := -1
	err := k.Any(func(c *Client) error {
		routes, err := c.PartitionRoutes(stream, topic)
		for _, rt := range routes {
			if rt.PartitionID == partition && int(rt.Primary) < len(k.addrs) {
				primary = int(rt.Primary)
			}
		}
		return err
	})
	if err != nil {
		return "", err
	}
	if primary < 0 {
		return "", fmt.Errorf("%w: no route to partition %d", ErrInvalidArgument, partition)
	}
	return k.addrs[primary], nil
}
