package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Profile picks how knobs are drawn.
type Profile uint8

const (
	// ProfileLite: short runs, process crashes and power losses, no
	// corruption; the CI sweep's bulk.
	ProfileLite Profile = iota + 1
	// ProfileSwarm: every knob drawn per seed, each fault kind on or off
	// (swarm testing), magnitudes from gentle to harsh.
	ProfileSwarm
	// ProfileLiveness: a short storm of faults, then a long heal whose
	// every request must complete within the budget.
	ProfileLiveness
	// ProfileCluster: a replica set of 3 to 5 (rarely 2 or 6) under
	// network, process, clock and disk faults; the metadata group and every
	// partition group are replicated.
	ProfileCluster
)

// replicasMax bounds the replica sets the simulator draws.
const replicasMax = 6

// shardsMax bounds the shards of a standalone node the simulator draws.
const shardsMax = 3

var profileNames = [...]string{ProfileLite: "lite", ProfileSwarm: "swarm", ProfileLiveness: "liveness", ProfileCluster: "cluster"}

func (p Profile) String() string {
	if int(p) < len(profileNames) && profileNames[p] != "" {
		return profileNames[p]
	}
	return fmt.Sprintf("profile(%d)", p)
}

// Profiles are every profile, in the order a sweep of all runs them.
func Profiles() []Profile {
	return []Profile{ProfileLite, ProfileSwarm, ProfileLiveness, ProfileCluster}
}

// ParseProfile reads lite, swarm, liveness or cluster.
func ParseProfile(s string) (Profile, error) {
	for i, n := range profileNames {
		if n != "" && n == s {
			return Profile(i), nil
		}
	}
	return 0, fmt.Errorf("unknown profile %q (lite, swarm, liveness, cluster)", s)
}

// Knobs are everything a seed decides before the run starts. Rates per
// tick are in parts per million, so rare faults stay expressible.
type Knobs struct {
	Profile  Profile
	Replicas int // 1: standalone; more: the metadata group is replicated
	// Shards of a standalone node's process (node.Config.Shards): the
	// front and Shards-1 hosts of partitions over one disk. A replica set
	// runs one.
	Shards  int
	Clients int

	FaultTicks      uint64 // ticks with faults on; then heal
	HealBudgetTicks uint64 // every pending request must finish within it

	// Workload.
	ThinkTicksMax    uint64
	BatchMessagesMax int
	PayloadBytesMax  int
	Topics           int // created at the start
	PartitionsMax    int // per topic at create
	MetaPercent      int // share of metadata creates among client ops
	ResendSends      bool
	// DataOps: clients send, poll and store offsets.
	DataOps bool
	// ChurnPercent is the share of metadata ops that update or delete
	// streams, topics, partitions, users and tokens, or log out and in.
	ChurnPercent int

	// Node.
	CheckpointEveryOps  uint64
	PartitionCacheBytes uint64
	// HeartbeatTicks is heartbeat.interval: sessions without a connection
	// end 1.2 intervals after their last request (0: never).
	HeartbeatTicks uint64

	// Network (replica <-> replica).
	Peer PeerKnobs

	// Network (client <-> node).
	NetDelayMeanTicks  float64
	ResetPerMillion    int // per message: the connection resets
	ClientTimeoutTicks uint64

	// Disk.
	DiskOpsPerTickMax    int
	TornWrites           bool
	ReadCorruptPerMille  int // partition segment reads after boot: one bit flipped
	ReadErrorPerMille    int // partition segment reads after boot: EIO
	DamagePerMillion     int // per tick: bit rot of a synced segment byte
	MetaDamagePerMillion int // per tick: bit rot of a synced metadata byte
	// MisdirectPerMille: metadata journal writes of a replica set that land
	// elsewhere in their file (within the fault atlas, as metadata damage).
	MisdirectPerMille int
	// TruncatePerMillion: per tick, a sealed segment's .log or .index of
	// a standalone node is cut short at rest (an operator's truncate, a
	// lost extent). Its seeds create topics of the smallest segments
	// (1 MiB) and send large batches, so runs seal segments.
	TruncatePerMillion int
	// WriteErrorPerMille: writes, creates, truncates and syncs of partition
	// segment files of a running standalone node that fail with EIO (a
	// full disk, a read-only directory, no descriptors left): the node
	// reopens the partition after a backoff (core/node/writeretry.go).
	WriteErrorPerMille int

	// Process.
	KillPerMillion      int
	PowerLossPerMillion int
	DownTicksMax        uint64
	PausePerMillion     int
	PauseTicksMax       uint64

	// Clock.
	DriftPPM            [replicasMax]int // per replica
	ClockStepPerMillion int
	ClockStepMaxMicros  uint64

	// Workload is the workload's version: WorkloadLegacy is the one the
	// corpus's older seeds were found under (they replay it), WorkloadHeavy
	// the one new runs draw (heavier.go).
	Workload int
	// Moves of the heavy workload: the share of data ops that poll by
	// another strategy (first, last, timestamp), that are consumer group
	// moves, and that drop the connection to resume the session.
	PollOtherPercent, GroupPercent, ReconnectPercent int
	// Long: a long run (long.go), storms and calms for FaultTicks.
	Long bool

	// Placement of a replica set (placement.go): the replication_factor
	// the workload's topics set (0: the default, every replica) and, with
	// WithRacks, each replica's rack.
	ReplicationFactor int
	WithRacks         bool
	Racks             [replicasMax]uint8
}

// Workload versions (Knobs.Workload).
const (
	WorkloadLegacy = 1
	WorkloadHeavy  = 2
	// WorkloadAdmin adds the admin moves to the churn (admin.go); its
	// knobs are drawn as the heavy workload's.
	WorkloadAdmin   = 3
	WorkloadCurrent = WorkloadAdmin
)

// Draw decides the knobs of seed under profile, for the current workload.
func Draw(seed uint64, p Profile) Knobs { return DrawWorkload(seed, p, WorkloadCurrent) }

// DrawWorkload decides the knobs of seed under profile and workload
// version v. The draw uses its own PRNG stream, so adding a knob at the
// end changes no earlier one: the legacy draw is a prefix of the heavy.
func DrawWorkload(seed uint64, p Profile, v int) Knobs {
	r := rand.New(rand.NewPCG(seed, 0x6b6e6f6273))
	var k Knobs
	switch p {
	case ProfileLite:
		k = drawLite(r)
	case ProfileLiveness:
		k = drawLiveness(r)
	case ProfileCluster:
		k = drawCluster(r)
	default:
		k = drawSwarm(r)
	}
	k.Shards = 1
	if k.Replicas == 1 {
		k.Shards = between(r, 1, shardsMax)
	}
	// Some swarm seeds churn a standalone node too: deletes and recreates
	// of streams, topics and partitions that host shards own.
	if p == ProfileSwarm && r.IntN(4) == 0 {
		k.MetaPercent, k.ChurnPercent = between(r, 10, 25), between(r, 30, 70)
	}
	if p == ProfileSwarm && r.IntN(4) == 0 {
		k.TruncatePerMillion = between(r, 100, 1500)
		k.PayloadBytesMax, k.BatchMessagesMax = 20000, between(r, 20, 40)
	}
	if p == ProfileSwarm && r.IntN(4) == 0 {
		k.WriteErrorPerMille = between(r, 1, 30)
	}
	// Half the seeds end sessions by lease, some of them within a fault
	// window, so that retirements meet crashes and view changes.
	if coin(r) {
		k.HeartbeatTicks = uint64([]int{100, 300, 1000}[r.IntN(3)])
	}
	k.Workload = WorkloadLegacy
	if v >= WorkloadHeavy {
		heavier(r, &k)
	}
	if p == ProfileCluster && v >= WorkloadHeavy {
		drawPlacement(r, &k) // last: the earlier knobs of a seed stay as they were
	}
	if v >= WorkloadAdmin {
		k.Workload = WorkloadAdmin
	}
	return k
}

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// coin is a swarm switch: the fault is on with probability 1/2.
func coin(r *rand.Rand) bool { return r.IntN(2) == 0 }

func base(r *rand.Rand, p Profile) Knobs {
	return Knobs{
		Profile: p, Replicas: 1, Clients: between(r, 2, 6),
		FaultTicks: uint64(between(r, 2000, 5000)), HealBudgetTicks: 6000,
		ThinkTicksMax: uint64(between(r, 0, 30)), BatchMessagesMax: between(r, 1, 40),
		PayloadBytesMax: []int{64, 512, 4096, 20000}[r.IntN(4)], Topics: between(r, 1, 3),
		PartitionsMax: between(r, 1, 3), MetaPercent: between(r, 2, 10), ResendSends: r.IntN(4) != 0,
		CheckpointEveryOps: uint64([]int{4, 16, 64, 0}[r.IntN(4)]), PartitionCacheBytes: 1 << 20,
		NetDelayMeanTicks: []float64{0, 0.5, 2, 8}[r.IntN(4)], ClientTimeoutTicks: uint64(between(r, 100, 400)),
		DiskOpsPerTickMax: []int{1, 2, 4, 16}[r.IntN(4)], TornWrites: coin(r),
		DownTicksMax: uint64(between(r, 1, 200)), DriftPPM: [replicasMax]int{between(r, -500, 500)}, DataOps: true,
	}
}

func drawLite(r *rand.Rand) Knobs {
	k := base(r, ProfileLite)
	k.Clients = between(r, 2, 4)
	k.FaultTicks = uint64(between(r, 800, 1500))
	k.PayloadBytesMax = min(k.PayloadBytesMax, 4096)
	k.KillPerMillion = between(r, 300, 1500)
	k.PowerLossPerMillion = between(r, 300, 1500)
	return k
}

func drawSwarm(r *rand.Rand) Knobs {
	k := base(r, ProfileSwarm)
	if coin(r) {
		k.KillPerMillion = between(r, 100, 2000)
	}
	if coin(r) {
		k.PowerLossPerMillion = between(r, 100, 2000)
	}
	if coin(r) {
		k.PausePerMillion, k.PauseTicksMax = between(r, 100, 2000), uint64(between(r, 10, 600))
	}
	if coin(r) {
		k.ResetPerMillion = between(r, 100, 20000)
	}
	if coin(r) {
		k.ReadCorruptPerMille = between(r, 5, 200)
	}
	if coin(r) {
		k.ReadErrorPerMille = between(r, 5, 100)
	}
	if r.IntN(4) == 0 {
		k.DamagePerMillion = between(r, 50, 500)
	}
	if r.IntN(8) == 0 {
		k.MetaDamagePerMillion = between(r, 20, 200)
	}
	if coin(r) {
		k.ClockStepPerMillion, k.ClockStepMaxMicros = between(r, 100, 2000), uint64(between(r, 1, 60))*1_000_000
	}
	return k
}

func drawLiveness(r *rand.Rand) Knobs {
	k := base(r, ProfileLiveness)
	k.FaultTicks = uint64(between(r, 600, 1500))
	k.KillPerMillion = between(r, 500, 3000)
	k.PowerLossPerMillion = between(r, 500, 3000)
	k.PausePerMillion, k.PauseTicksMax = between(r, 500, 3000), uint64(between(r, 10, 600))
	k.ResetPerMillion = between(r, 1000, 30000)
	k.ReadErrorPerMille = between(r, 0, 100)
	k.ClockStepPerMillion, k.ClockStepMaxMicros = between(r, 0, 3000), 30_000_000
	return k
}

// drawCluster: a replica set under every fault kind, each on or off per
// seed; checkpoints every few ops so a lagging replica needs state
// transfer; long partitions so one replica falls far behind.
func drawCluster(r *rand.Rand) Knobs {
	k := base(r, ProfileCluster)
	k.Replicas = []int{3, 3, 3, 4, 4, 5, 5, 5, 2, 6}[r.IntN(10)]
	for i := 1; i < k.Replicas; i++ {
		k.DriftPPM[i] = between(r, -500, 500)
	}
	k.DataOps, k.MetaPercent, k.ChurnPercent = true, between(r, 20, 60), between(r, 20, 60)
	// Few partitions: every one is a consensus group on every replica.
	k.Clients, k.PartitionsMax = between(r, 2, 4), 2
	k.FaultTicks = uint64(between(r, 1500, 4000))
	// The read-back after heal visits every partition on its primary, one
	// reconnect and login per move: a few hundred ticks per partition.
	k.HealBudgetTicks = 16000
	k.CheckpointEveryOps = uint64([]int{2, 4, 8, 32}[r.IntN(4)])
	k.ClientTimeoutTicks = uint64(between(r, 200, 800))
	k.Peer = PeerKnobs{DelayMeanTicks: []float64{0, 0.5, 2, 5}[r.IntN(4)], ClogTicksMax: uint64(between(r, 10, 300)),
		PartitionTicksMax: uint64(between(r, 300, 2500))}
	if coin(r) {
		k.Peer.LossPerMillion = between(r, 1000, 50000)
	}
	if coin(r) {
		k.Peer.DupPerMillion = between(r, 1000, 50000)
	}
	if coin(r) {
		k.Peer.ClogPerMillion = between(r, 100, 3000)
	}
	if r.IntN(4) != 0 {
		k.Peer.PartitionPerMillion = between(r, 200, 2000)
	}
	if coin(r) {
		k.KillPerMillion = between(r, 100, 1000)
	}
	if coin(r) {
		k.PowerLossPerMillion = between(r, 100, 1000)
	}
	if coin(r) {
		k.PausePerMillion, k.PauseTicksMax = between(r, 100, 1000), uint64(between(r, 10, 800))
	}
	if coin(r) {
		k.ResetPerMillion = between(r, 100, 20000)
	}
	if r.IntN(4) == 0 {
		k.MetaDamagePerMillion = between(r, 20, 200)
	}
	if r.IntN(4) == 0 {
		k.MisdirectPerMille = between(r, 1, 20)
	}
	if r.IntN(4) == 0 {
		k.DamagePerMillion = between(r, 50, 500)
	}
	if coin(r) {
		k.ClockStepPerMillion, k.ClockStepMaxMicros = between(r, 100, 2000), uint64(between(r, 1, 60))*1_000_000
	}
	k.DownTicksMax = uint64(between(r, 1, 1500))
	// A disk that completes one request a tick falls behind checkpoints
	// every few ops on every replica, and sim/disk's ordering check is
	// quadratic in its backlog.
	k.DiskOpsPerTickMax = []int{4, 16}[r.IntN(2)]
	// Fewer ops, so fewer partitions: each costs every replica on every
	// flush, boot and state transfer.
	k.ThinkTicksMax = uint64(between(r, 10, 60))
	return k
}

// String prints every knob on one line, the first thing a run prints.
func (k Knobs) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "profile=%s replicas=%d shards=%d clients=%d fault_ticks=%d heal_budget_ticks=%d",
		k.Profile, k.Replicas, k.Shards, k.Clients, k.FaultTicks, k.HealBudgetTicks)
	fmt.Fprintf(&b, " think_ticks_max=%d batch_messages_max=%d payload_bytes_max=%d topics=%d partitions_max=%d meta_percent=%d resend_sends=%t data_ops=%t churn_percent=%d",
		k.ThinkTicksMax, k.BatchMessagesMax, k.PayloadBytesMax, k.Topics, k.PartitionsMax, k.MetaPercent, k.ResendSends, k.DataOps, k.ChurnPercent)
	if k.Replicas > 1 {
		fmt.Fprintf(&b, " %s", k.Peer)
	}
	fmt.Fprintf(&b, " checkpoint_every_ops=%d heartbeat_ticks=%d net_delay_mean_ticks=%g reset_ppm=%d client_timeout_ticks=%d",
		k.CheckpointEveryOps, k.HeartbeatTicks, k.NetDelayMeanTicks, k.ResetPerMillion, k.ClientTimeoutTicks)
	fmt.Fprintf(&b, " disk_ops_per_tick_max=%d torn_writes=%t read_corrupt_permille=%d read_error_permille=%d damage_ppm=%d meta_damage_ppm=%d misdirect_permille=%d truncate_ppm=%d write_error_permille=%d",
		k.DiskOpsPerTickMax, k.TornWrites, k.ReadCorruptPerMille, k.ReadErrorPerMille, k.DamagePerMillion, k.MetaDamagePerMillion, k.MisdirectPerMille,
		k.TruncatePerMillion, k.WriteErrorPerMille)
	fmt.Fprintf(&b, " kill_ppm=%d power_loss_ppm=%d down_ticks_max=%d pause_ppm=%d pause_ticks_max=%d drift_ppm=%v clock_step_ppm=%d clock_step_max_us=%d",
		k.KillPerMillion, k.PowerLossPerMillion, k.DownTicksMax, k.PausePerMillion, k.PauseTicksMax, k.DriftPPM[:k.Replicas],
		k.ClockStepPerMillion, k.ClockStepMaxMicros)
	fmt.Fprintf(&b, " workload=%d long=%t", k.Workload, k.Long)
	if k.Workload >= WorkloadHeavy {
		fmt.Fprintf(&b, " poll_other_percent=%d group_percent=%d reconnect_percent=%d",
			k.PollOtherPercent, k.GroupPercent, k.ReconnectPercent)
	}
	if k.ReplicationFactor > 0 || k.WithRacks {
		fmt.Fprintf(&b, " replication_factor=%d racks=%s", k.ReplicationFactor, racksField(k.rackList()))
	}
	return b.String()
}
