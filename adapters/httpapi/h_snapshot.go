package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/iggygo/iggy/wire"
)

var snapshotCompressions = map[string]uint8{
	"Stored": wire.SnapshotCompressionStored, "Deflated": wire.SnapshotCompressionDeflated,
	"Bzip2": wire.SnapshotCompressionBzip2, "Zstd": wire.SnapshotCompressionZstd,
	"Lzma": wire.SnapshotCompressionLzma, "Xz": wire.SnapshotCompressionXz,
}

var snapshotTypes = map[string]uint8{
	"FilesystemOverview": wire.SnapshotTypeFilesystemOverview, "ProcessList": wire.SnapshotTypeProcessList,
	"ResourceUsage": wire.SnapshotTypeResourceUsage, "Test": wire.SnapshotTypeTest,
	"ServerLogs": wire.SnapshotTypeServerLogs, "ServerConfig": wire.SnapshotTypeServerConfig, "All": wire.SnapshotTypeAll,
}

// snapshotTypesMax bounds the type list (its count is one byte).
const snapshotTypesMax = 255

// POST /snapshot: GetSnapshotFile (11), answered with the ZIP the node
// returns. The node decides the permission (manage_servers, AUTH-1).
func (s *Server) snapshot(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	req := wire.SnapshotRequest{Compression: wire.SnapshotCompressionDeflated, Types: []uint8{wire.SnapshotTypeAll}}
	if name, ok, e := o.str("compression", false); e != nil {
		return e
	} else if ok {
		if req.Compression, ok = snapshotCompressions[name]; !ok {
			return shapeError("compression", "unknown compression")
		}
	}
	if o.present("snapshot_types") {
		var names []string
		if err := json.Unmarshal(o["snapshot_types"], &names); err != nil || len(names) > snapshotTypesMax {
			return shapeError("snapshot_types", "expected an array of snapshot types")
		}
		req.Types = req.Types[:0]
		for _, n := range names {
			t, ok := snapshotTypes[n]
			if !ok {
				return shapeError("snapshot_types", "unknown snapshot type")
			}
			req.Types = append(req.Types, t)
		}
	}
	payload, e := s.call(c, wire.CmdGetSnapshotFile, encode(req.Encode), snapshotting)
	if e != nil {
		return e
	}
	name := "iggy_snapshot_" + time.Now().Format("20060102_150405") + ".zip"
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(payload)
	return nil
}

// POST /debug/flight-recorder/dump: DumpFlightRecorder (19, ours), answered
// with {"file": name}, the dump's name under debug.flight_recorder.dump_path.
// The node decides the permission (manage_servers).
func (s *Server) dumpFlightRecorder(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdDumpFlightRecorder, nil, snapshotting)
	if e != nil {
		return e
	}
	return okJSON(w, struct {
		File string `json:"file"`
	}{string(payload)})
}
