package config

// Debug holds diagnostics that cost something and are off by default.
type Debug struct {
	FlightRecorder FlightRecorder `koanf:"flight_recorder"`
}

// FlightRecorder is [debug.flight_recorder]: the ring of core inputs that
// iggy-sim replays (package flight).
type FlightRecorder struct {
	Enabled  bool   `koanf:"enabled"`
	RingSize uint64 `koanf:"ring_size" conf:"size"`
	DumpPath string `koanf:"dump_path"`
	// RecordReadData records the bytes of the disk reads that serve polls,
	// not only their digest: a dump then replays without the data directory.
	RecordReadData bool `koanf:"record_read_data"`
}

// flightRingBytesMin and Max bound debug.flight_recorder.ring_size: below
// a MiB a ring holds too little to replay, above 4 GiB it is a mistake.
const (
	flightRingBytesMin = 1 << 20
	flightRingBytesMax = 4 << 30
)

func validateDebug(c *checker, d *Debug) {
	f := &d.FlightRecorder
	c.check(!f.Enabled || (f.RingSize >= flightRingBytesMin && f.RingSize <= flightRingBytesMax),
		"debug.flight_recorder.ring_size must be between 1 MiB and 4 GiB")
	c.check(!f.Enabled || f.DumpPath != "", "debug.flight_recorder.dump_path must not be empty")
}
