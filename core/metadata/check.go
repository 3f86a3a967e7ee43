package metadata

import (
	"errors"
	"fmt"
)

// index rebuilds the lookup maps of a decoded state, refusing duplicate names.
func (s *State) index() error {
	for _, st := range s.streams {
		if err := addName(s.streamNames, st.Name, st.ID); err != nil {
			return fmt.Errorf("stream %d: %w", st.ID, err)
		}
		st.topicNames = map[string]uint32{}
		for _, t := range st.Topics {
			if err := addName(st.topicNames, t.Name, t.ID); err != nil {
				return fmt.Errorf("stream %d topic %d: %w", st.ID, t.ID, err)
			}
			t.groupNames = map[string]uint32{}
			for _, g := range t.Groups {
				if err := addName(t.groupNames, g.Name, g.ID); err != nil {
					return fmt.Errorf("stream %d topic %d group %d: %w", st.ID, t.ID, g.ID, err)
				}
			}
		}
	}
	for _, u := range s.users {
		if err := addName(s.userNames, u.Username, u.ID); err != nil {
			return fmt.Errorf("user %d: %w", u.ID, err)
		}
		for _, t := range u.tokens {
			if _, dup := s.tokenHashes[t.TokenHash]; dup {
				return fmt.Errorf("user %d token %q: duplicate hash", u.ID, t.Name)
			}
			s.tokenHashes[t.TokenHash] = t
		}
	}
	return nil
}

func addName(names map[string]uint32, name string, id uint32) error {
	if _, dup := names[name]; dup {
		return fmt.Errorf("duplicate name %q", name)
	}
	names[name] = id
	return nil
}

// check verifies every invariant Apply maintains. Restore refuses a state
// that breaks one, so a restored state can never trip an assertion later.
func (s *State) check() error {
	for i, st := range s.streams {
		if i > 0 && st.ID <= s.streams[i-1].ID || st.ID >= streamsMax {
			return fmt.Errorf("stream %d: id out of order or range", st.ID)
		}
		if s.streamNames[st.Name] != st.ID || st.CreatedOp > s.lastOp || len(st.topicNames) != len(st.Topics) {
			return fmt.Errorf("stream %d: bad name index or creation op", st.ID)
		}
		for j, t := range st.Topics {
			if j > 0 && t.ID <= st.Topics[j-1].ID || t.ID >= topicsPerStreamMax {
				return fmt.Errorf("stream %d topic %d: id out of order or range", st.ID, t.ID)
			}
			if err := s.checkTopic(st, t); err != nil {
				return fmt.Errorf("stream %d topic %d: %w", st.ID, t.ID, err)
			}
		}
	}
	return s.checkUsers()
}

func (s *State) checkTopic(st *Stream, t *Topic) error {
	if st.topicNames[t.Name] != t.ID || t.CreatedOp > s.lastOp || len(t.groupNames) != len(t.Groups) {
		return errors.New("bad name index or creation op")
	}
	if t.ResizePolicy > ResizeFixed || t.ReplicationFactor > replicationFactorMax ||
		t.CompressionAlgorithm != compressionNone && t.CompressionAlgorithm != compressionGzip {
		return errors.New("bad setting")
	}
	for k, p := range t.Partitions {
		if k > 0 && p.ID <= t.Partitions[k-1].ID || p.ID >= partitionIDsMax || p.CreatedRevision > s.lastOp {
			return fmt.Errorf("partition %d: bad id or revision", p.ID)
		}
		if !validMembers(&p) {
			return fmt.Errorf("partition %d: bad members or primary", p.ID)
		}
	}
	for k, g := range t.Groups {
		if k > 0 && g.ID <= t.Groups[k-1].ID || g.ID >= t.NextGroupID || t.groupNames[g.Name] != g.ID {
			return fmt.Errorf("group %d: bad id or name index", g.ID)
		}
		if err := checkGroup(t, g); err != nil {
			return fmt.Errorf("group %d: %w", g.ID, err)
		}
	}
	return nil
}

// checkGroup: slots ascending, clients distinct, every owned partition
// exists and has one owner, revocations are owned and aim at another member.
func checkGroup(t *Topic, g *ConsumerGroup) error {
	owners := map[uint32]bool{}
	for k, m := range g.Members {
		if k > 0 && m.ID <= g.Members[k-1].ID {
			return fmt.Errorf("member slot %d out of order", m.ID)
		}
		if i, _ := g.memberIndex(m.Client); i != k {
			return fmt.Errorf("member slot %d: duplicate client", m.ID)
		}
		for _, p := range m.Partitions {
			if _, ok := search(t.Partitions, p, partitionKey); !ok || owners[p] {
				return fmt.Errorf("member slot %d: partition %d missing or shared", m.ID, p)
			}
			owners[p] = true
		}
		for r, rv := range m.Revoking {
			target, ok := g.memberIndex(rv.Target)
			if r > 0 && rv.Partition <= m.Revoking[r-1].Partition || !containsSorted(m.Partitions, rv.Partition) || !ok || target == k {
				return fmt.Errorf("member slot %d: bad revocation of %d", m.ID, rv.Partition)
			}
		}
	}
	return nil
}

func (s *State) checkUsers() error {
	if len(s.users) > 0 && (s.users[0].ID != RootUserID || s.users[0].Status != UserActive) {
		return errors.New("users without an active root")
	}
	tokens := 0
	for i, u := range s.users {
		tokens += len(u.tokens)
		if i > 0 && u.ID <= s.users[i-1].ID || u.ID >= s.nextUserID {
			return fmt.Errorf("user %d: id out of order or range", u.ID)
		}
		if !validUsername(u.Username) || s.userNames[u.Username] != u.ID ||
			u.Status != UserActive && u.Status != UserInactive {
			return fmt.Errorf("user %d: bad username or status", u.ID)
		}
		for k, t := range u.tokens {
			if k > 0 && t.Name <= u.tokens[k-1].Name || t.UserID != u.ID || s.tokenHashes[t.TokenHash] != t {
				return fmt.Errorf("user %d token %q: out of order or badly indexed", u.ID, t.Name)
			}
		}
	}
	if len(s.userNames) != len(s.users) || len(s.streamNames) != len(s.streams) || len(s.tokenHashes) != tokens {
		return errors.New("name index size mismatch")
	}
	return nil
}

// validMembers: members ascending below the replica bound, primaries among
// them.
func validMembers(p *Partition) bool {
	for i, m := range p.Members {
		if m >= replicationFactorMax || i > 0 && m <= p.Members[i-1] {
			return false
		}
	}
	if p.Members != nil && len(p.Members) == 0 {
		return false
	}
	return p.FirstPrimary < replicationFactorMax && p.Primary < replicationFactorMax &&
		p.IsMember(p.FirstPrimary) && p.IsMember(p.Primary)
}
