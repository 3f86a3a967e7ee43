package client

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// GetStats reads the server's statistics (code 10).
func (c *Client) GetStats() (wire.Stats, error) {
	payload, err := c.call(wire.CmdGetStats, nil)
	if err != nil {
		return wire.Stats{}, err
	}
	s, code := wire.DecodeStats(payload)
	if code != wire.OK {
		return wire.Stats{}, decodeFailed("GetStats", code)
	}
	return s, nil
}

// GetMe reads the calling connection's own client details (code 20).
func (c *Client) GetMe() (wire.ClientDetails, error) {
	payload, err := c.call(wire.CmdGetMe, nil)
	if err != nil {
		return wire.ClientDetails{}, err
	}
	d, code := wire.DecodeClientDetails(payload)
	if code != wire.OK {
		return wire.ClientDetails{}, decodeFailed("GetMe", code)
	}
	return d, nil
}

// GetClusterMetadata reads the cluster's name and nodes (code 12).
func (c *Client) GetClusterMetadata() (wire.ClusterMetadata, error) {
	payload, err := c.call(wire.CmdGetClusterMetadata, nil)
	if err != nil {
		return wire.ClusterMetadata{}, err
	}
	m, code := wire.DecodeClusterMetadata(payload)
	if code != wire.OK {
		return wire.ClusterMetadata{}, decodeFailed("GetClusterMetadata", code)
	}
	return m, nil
}

// GetSnapshotFile asks for the diagnostic ZIP (code 11) of the given parts
// (wire.SnapshotType*), compressed as compression (wire.SnapshotCompression*),
// and returns the archive's bytes.
func (c *Client) GetSnapshotFile(compression uint8, types []uint8) ([]byte, error) {
	return c.call(wire.CmdGetSnapshotFile, encode(wire.SnapshotRequest{Compression: compression, Types: types}.Encode))
}

// DescribeOptions reads the option catalog of scope (code 13, RES-2).
func (c *Client) DescribeOptions(scope wire.OptionScope) ([]wire.OptionDescriptor, error) {
	payload, err := c.call(wire.CmdDescribeOptions, encode(func(w *wire.Writer) { wire.EncodeDescribeOptionsRequest(w, scope) }))
	if err != nil {
		return nil, err
	}
	d, code := wire.DecodeDescribeOptions(payload)
	if code != wire.OK {
		return nil, decodeFailed("DescribeOptions", code)
	}
	return d, nil
}

// DumpFlightRecorder has the server write a flight recorder dump under its
// debug.flight_recorder.dump_path (code 19, ours; needs manage_servers) and
// returns the dump's file name there; 5 FeatureUnavailable when the
// recorder is off.
func (c *Client) DumpFlightRecorder() (string, error) {
	payload, err := c.call(wire.CmdDumpFlightRecorder, nil)
	if err != nil {
		return "", err
	}
	if len(payload) == 0 || len(payload) > dumpNameBytesMax {
		return "", fmt.Errorf("%w: DumpFlightRecorder answered a name of %d bytes", ErrProtocol, len(payload))
	}
	return string(payload), nil
}

// dumpNameBytesMax bounds the dump file name a server may answer.
const dumpNameBytesMax = 255
