package node

import (
	"strconv"
	"strings"
)

// ipv6GroupsCount is the number of 16-bit groups of an IPv6 address, and
// ipv6NetworkGroups the groups of its /64 network.
const (
	ipv6GroupsCount   = 8
	ipv6NetworkGroups = 4
)

// loginSource is the key failed logins from a connection's address (the
// adapter's "host:port", "[v6]:port") are counted and queued under: the
// host without its port, an IPv4-mapped IPv6 address as its IPv4, and
// other IPv6 addresses by their /64 network, since one host commonly holds
// a whole /64. An address it cannot read is its own key.
func loginSource(addr string) string {
	host := addr
	if rest, ok := strings.CutPrefix(addr, "["); ok {
		if i := strings.IndexByte(rest, ']'); i >= 0 {
			host = rest[:i]
		}
	} else if strings.Count(addr, ":") == 1 {
		host = addr[:strings.IndexByte(addr, ':')]
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i] // an IPv6 zone
	}
	if !strings.Contains(host, ":") {
		return host
	}
	if v4, ok := strings.CutPrefix(strings.ToLower(host), "::ffff:"); ok && strings.Contains(v4, ".") {
		return v4
	}
	if network, ok := ipv6Network(host); ok {
		return network
	}
	return host
}

// ipv6Network returns the /64 network of an IPv6 address in one spelling
// ("2001:db8:0:1::/64"), whatever the address's own spelling.
func ipv6Network(host string) (string, bool) {
	head, tail, compressed := strings.Cut(host, "::")
	groups := ipv6Groups(head)
	if compressed {
		rest := ipv6Groups(tail)
		if len(groups)+len(rest) >= ipv6GroupsCount {
			return "", false
		}
		groups = append(groups, make([]string, ipv6GroupsCount-len(groups)-len(rest))...)
		groups = append(groups, rest...)
	}
	if len(groups) != ipv6GroupsCount {
		return "", false
	}
	var b strings.Builder
	for _, g := range groups[:ipv6NetworkGroups] {
		v := uint64(0)
		if g != "" {
			var err error
			if v, err = strconv.ParseUint(g, 16, 16); err != nil {
				return "", false
			}
		}
		b.WriteString(strconv.FormatUint(v, 16))
		b.WriteByte(':')
	}
	b.WriteString(":/64")
	return b.String(), true
}

// ipv6Groups splits colon-separated groups; a trailing dotted IPv4 part
// counts as the two groups it encodes.
func ipv6Groups(s string) []string {
	if s == "" {
		return nil
	}
	groups := strings.Split(s, ":")
	if last := groups[len(groups)-1]; strings.Contains(last, ".") {
		groups = append(groups[:len(groups)-1], "0", "0") // past the /64: its value does not matter
	}
	return groups
}
