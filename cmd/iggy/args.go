package main

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/iggygo/iggy/wire"
)

// id reads a stream, topic, group or user reference: a number is an id,
// anything else a name (as Iggy's CLI reads them).
func id(s string) wire.Identifier {
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return wire.NumericID(uint32(n))
	}
	return wire.NamedID(s)
}

func u32Arg(what, s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, usageErrorf("%s %q: want a number 0..%d", what, s, uint32(math.MaxUint32))
	}
	return uint32(n), nil
}

func u64Arg(what, s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usageErrorf("%s %q: want a non-negative number", what, s)
	}
	return n, nil
}

// optionFlags are --set key=value and --reset key of a create or update.
type optionFlags struct {
	set   []string
	reset []string
}

func (o *optionFlags) register(cmd *cobra.Command, resettable bool) {
	cmd.Flags().StringArrayVar(&o.set, "set", nil, "set an option, key=value in config-file syntax (\"7 days\", \"1 GiB\"); repeatable")
	if resettable {
		cmd.Flags().StringArrayVar(&o.reset, "reset", nil, "reset an option to its default; repeatable")
	}
}

// options are the --set entries; the server parses their text (RES-24).
func (o *optionFlags) options() (wire.Options, error) {
	var out wire.Options
	for _, kv := range o.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErrorf("--set %q: want key=value", kv)
		}
		out = append(out, wire.Option{Key: k, Kind: wire.KindString, Value: []byte(v)})
	}
	return out, nil
}

// headerValue encodes the text of a --header value of kind.
func headerValue(kind wire.ValueKind, text string) ([]byte, bool) {
	switch kind {
	case wire.KindString:
		return []byte(text), text != ""
	case wire.KindRaw:
		b, err := base64.StdEncoding.DecodeString(text)
		return b, err == nil && len(b) > 0
	case wire.KindBool:
		v, err := strconv.ParseBool(text)
		if err != nil {
			return nil, false
		}
		if v {
			return []byte{1}, true
		}
		return []byte{0}, true
	case wire.KindFloat32:
		f, err := strconv.ParseFloat(text, 32)
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))), err == nil
	case wire.KindFloat64:
		f, err := strconv.ParseFloat(text, 64)
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), err == nil
	}
	size := kind.FixedSize()
	if size == 0 || size > 8 {
		return nil, false // 128-bit kinds are not typed in here
	}
	var u uint64
	var err error
	if kind.Unsigned() {
		u, err = strconv.ParseUint(text, 10, size*8)
	} else {
		var i int64
		i, err = strconv.ParseInt(text, 10, size*8)
		u = uint64(i)
	}
	return binary.LittleEndian.AppendUint64(nil, u)[:size], err == nil
}

// permissionNames are the global permission flags by their Iggy names.
var permissionNames = []string{"manage_servers", "read_servers", "manage_users", "read_users",
	"manage_streams", "read_streams", "manage_topics", "read_topics", "poll_messages", "send_messages"}

func globalPermissionFields(g *wire.GlobalPermissions) []*bool {
	return []*bool{&g.ManageServers, &g.ReadServers, &g.ManageUsers, &g.ReadUsers, &g.ManageStreams,
		&g.ReadStreams, &g.ManageTopics, &g.ReadTopics, &g.PollMessages, &g.SendMessages}
}

// globalPermissions reads a comma-separated list of permission names.
func globalPermissions(names []string) (*wire.Permissions, error) {
	if len(names) == 0 {
		return nil, nil
	}
	p := &wire.Permissions{}
	fields := globalPermissionFields(&p.Global)
	for _, n := range names {
		i := indexOf(permissionNames, strings.TrimSpace(n))
		if i < 0 {
			return nil, usageErrorf("permission %q: want one of %s", n, strings.Join(permissionNames, ", "))
		}
		*fields[i] = true
	}
	return p, nil
}

// grantedGlobal lists the names of the global permissions p grants.
func grantedGlobal(p *wire.Permissions) []string {
	out := []string{}
	if p == nil {
		return out
	}
	for i, f := range globalPermissionFields(&p.Global) {
		if *f {
			out = append(out, permissionNames[i])
		}
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// userStatus reads active or inactive.
func userStatus(s string) (wire.UserStatus, error) {
	switch s {
	case "active":
		return wire.UserStatusActive, nil
	case "inactive":
		return wire.UserStatusInactive, nil
	}
	return 0, usageErrorf("status %q: want active or inactive", s)
}
