#!/usr/bin/env bash
# bench-vs-nats.sh: our server against NATS JetStream (file storage, one
# replica) on this machine, in one run, loopback only, with 1000-byte
# messages in batches of 1000. Each row starts a fresh server of each kind,
# one at a time (never both at once), runs the same workload against it and
# stops it by its PID. It prints a table: ours, NATS, ratio.
#
#   scripts/bench-vs-nats.sh            # 10 s per measurement
#   BENCH_DURATION=3s scripts/bench-vs-nats.sh
#
# Rows:
#   pinned producer x1 and x8 without fsync: our default durability
#     (replicated) against the NATS default (sync_interval 2 min), every
#     message of a batch in flight at once (async publish);
#   pinned producer x8 with fsync per batch: our persisted durability against
#     NATS with sync_interval: always and each batch one atomic batch;
#   pinned consumer x8, warm: a first pass writes and reads the data, the
#     measured pass reads it again from the page cache;
#   one producer, one batch in flight, capped at BENCH_LATENCY_RATE MB/s:
#     the latency of a batch when neither server is saturated.
#
# Our server writes a CPU profile per row (IGGYGO_CPU_PROFILE, restarted by
# SIGUSR1 after any warm-up pass); the top entries of the producer and
# consumer rows are saved next to the results and printed at the end.
#
# Tools: nats-server is installed from the Go module proxy with `go install`
# into .bench/bin (nothing else is downloaded); natsbench (scripts/natsbench)
# is the JetStream side of the workloads, built from this repository.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_WORK:-$ROOT/.bench}
NATS_VERSION=${NATS_VERSION:-v2.15.2}
DURATION=${BENCH_DURATION:-10s}
LATENCY_RATE=${BENCH_LATENCY_RATE:-100}
IO_BACKEND=${BENCH_IO_BACKEND:-auto}
IGGY_ADDR=127.0.0.1:18090
NATS_ADDR=127.0.0.1:14222
START_TIMEOUT_S=30
STOP_TIMEOUT_S=20
BENCH_SLACK_S=300 # bound on a bench beyond its duration (prefill, setup)

if [[ ! $DURATION =~ ^[0-9]+s$ ]]; then
	echo "BENCH_DURATION must be whole seconds, like 10s" >&2
	exit 2
fi

BIN=$WORK/bin
RUN=$WORK/run
mkdir -p "$BIN" "$RUN"
echo '*' >"$WORK/.gitignore" # nothing under .bench is ever committed
cd "$ROOT"

PIDS=()

# stop_pid PID: SIGTERM, then SIGKILL after STOP_TIMEOUT_S; only PIDs we started.
stop_pid() {
	local pid=$1 i
	if kill -TERM "$pid" 2>/dev/null; then
		for ((i = 0; i < STOP_TIMEOUT_S * 10; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "pid $pid ignored SIGTERM; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true
}

cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		stop_pid "$pid"
	done
	PIDS=()
}
trap cleanup EXIT INT TERM

# wait_for_line FILE TEXT PID: until FILE holds TEXT, the process died, or timeout.
wait_for_line() {
	local file=$1 text=$2 pid=$3 i
	for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
		grep -q "$text" "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || { echo "server $pid exited; log:" >&2; tail -20 "$file" >&2; return 1; }
		sleep 0.1
	done
	echo "server $pid not ready after ${START_TIMEOUT_S}s" >&2
	return 1
}

echo "== building (nats-server $NATS_VERSION from the Go module proxy)" >&2
if [[ ! -x $BIN/nats-server ]] || ! "$BIN/nats-server" --version | grep -q "${NATS_VERSION#v}"; then
	GOBIN=$BIN go install "github.com/nats-io/nats-server/v2@$NATS_VERSION"
fi
go build -o "$BIN/iggy-server" ./cmd/iggy-server
go build -o "$BIN/iggy-bench" ./cmd/iggy-bench
(cd scripts/natsbench && go build -o "$BIN/natsbench" .)

# settle_disk: the previous run's data is deleted; sync waits for the
# writeback still in flight, so every measured run starts with a clean page
# cache (a run that inherits gigabytes of dirty pages is throttled early).
settle_disk() {
	sync
}

IGGY_PID=
# start_iggy ROW: a fresh data directory, the CPU profile of ROW.
start_iggy() {
	local row=$1 data=$RUN/$1.iggy-data
	rm -rf "$data"
	settle_disk
	rm -f "$RUN/$row.iggy.log" # so the wait below never reads an earlier run's log
	env -i PATH="$PATH" HOME="${HOME:-/root}" \
		IGGY_SYSTEM_PATH="$data" IGGY_TCP_ADDRESS=$IGGY_ADDR IGGY_HTTP_ENABLED=false \
		IGGY_QUIC_ENABLED=false IGGY_WEBSOCKET_ENABLED=false IGGY_SYSTEM_IO_BACKEND="$IO_BACKEND" \
		IGGYGO_CPU_PROFILE="$RUN/$row.prof" \
		"$BIN/iggy-server" --with-default-root-credentials >"$RUN/$row.iggy.log" 2>&1 &
	IGGY_PID=$!
	PIDS+=("$IGGY_PID")
	wait_for_line "$RUN/$row.iggy.log" "tcp listening on" "$IGGY_PID"
}

NATS_PID=
# start_nats ROW SYNC: a fresh store; SYNC is "default" or "always".
start_nats() {
	local row=$1 sync=$2 store=$RUN/$1.nats-store conf=$RUN/$1.nats.conf
	rm -rf "$store"
	settle_disk
	rm -f "$RUN/$row.nats.log"
	{
		echo "listen: $NATS_ADDR"
		echo "jetstream {"
		echo "  store_dir: \"$store\""
		[[ $sync == always ]] && echo "  sync_interval: always"
		echo "}"
	} >"$conf"
	"$BIN/nats-server" -c "$conf" >"$RUN/$row.nats.log" 2>&1 &
	NATS_PID=$!
	PIDS+=("$NATS_PID")
	wait_for_line "$RUN/$row.nats.log" "Server is ready" "$NATS_PID"
}

stop_all() {
	cleanup
	IGGY_PID= NATS_PID=
}

bench_timeout() { echo $((${DURATION%s} + BENCH_SLACK_S)); }

COMMON=(--message-size 1000 --messages-per-batch 1000 --duration "$DURATION")

# iggy ROW ARGS...: one measured iggy-bench run, its JSON into ROW.ours.json.
iggy() {
	local row=$1
	shift
	timeout "$(bench_timeout)" "$BIN/iggy-bench" "$@" --addr $IGGY_ADDR "${COMMON[@]}" --json \
		>"$RUN/$row.ours.json" 2>"$RUN/$row.ours.err" || { echo "iggy-bench failed ($row):" >&2; tail -5 "$RUN/$row.ours.err" >&2; }
}

# nats ROW ARGS...: one measured natsbench run, its JSON into ROW.nats.json.
nats() {
	local row=$1
	shift
	timeout "$(bench_timeout)" "$BIN/natsbench" "$@" --url "nats://$NATS_ADDR" "${COMMON[@]}" --json \
		>"$RUN/$row.nats.json" 2>"$RUN/$row.nats.err" || { echo "natsbench failed ($row):" >&2; tail -5 "$RUN/$row.nats.err" >&2; }
}

# row ROW SYNC OURS-ARGS -- NATS-ARGS: both sides of one row, one server at a time.
row() {
	local name=$1 sync=$2
	shift 2
	local ours=() theirs=()
	while [[ $1 != -- ]]; do ours+=("$1"); shift; done
	shift
	theirs=("$@")
	echo "== $name" >&2
	rm -f "$RUN/$name".*.json
	start_iggy "$name"
	if [[ ${ours[0]} == pinned-consumer ]]; then
		# Warm pass: writes the data and reads it once; then the profile starts over.
		"$BIN/iggy-bench" "${ours[@]}" --addr $IGGY_ADDR --message-size 1000 --messages-per-batch 1000 \
			--duration 2s >/dev/null 2>"$RUN/$name.warm.err" || echo "warm pass failed ($name)" >&2
		kill -USR1 "$IGGY_PID"
	fi
	iggy "$name" "${ours[@]}"
	stop_all
	rm -rf "$RUN/$name.iggy-data"
	start_nats "$name" "$sync"
	if [[ ${theirs[0]} == pinned-consumer ]]; then
		"$BIN/natsbench" "${theirs[@]}" --url "nats://$NATS_ADDR" --message-size 1000 --messages-per-batch 1000 \
			--duration 2s >/dev/null 2>"$RUN/$name.warm.err" || echo "warm pass failed ($name)" >&2
	fi
	nats "$name" "${theirs[@]}"
	stop_all
	rm -rf "$RUN/$name.nats-store"
}

row producer-x1 default pinned-producer --actors 1 -- pinned-producer --actors 1
row producer-x8 default pinned-producer --actors 8 -- pinned-producer --actors 8
row producer-x8-fsync always pinned-producer --actors 8 --durability persisted -- pinned-producer --actors 8 --atomic
row consumer-x8-warm default pinned-consumer --actors 8 -- pinned-consumer --actors 8
row latency-x1 default pinned-producer --actors 1 --rate-limit "$LATENCY_RATE" -- \
	pinned-producer --actors 1 --rate-limit "$LATENCY_RATE"

# The bench's logins (argon2id, once per connection, before measuring) are
# left out of the tops; the .prof files hold everything.
for r in producer-x1 producer-x8 producer-x8-fsync consumer-x8-warm; do
	if [[ -s $RUN/$r.prof ]]; then
		go tool pprof -top -nodecount=25 -ignore=argon2 "$BIN/iggy-server" "$RUN/$r.prof" >"$RUN/$r.top" 2>/dev/null || true
		go tool pprof -top -cum -nodecount=40 -ignore=argon2 "$BIN/iggy-server" "$RUN/$r.prof" >"$RUN/$r.cum" 2>/dev/null || true
	fi
done

{
	echo "1000-byte messages, batches of 1000, ${DURATION} per run, io backend $IO_BACKEND; $(nproc) cores; $(uname -r)"
	"$BIN/natsbench" table \
		"pinned producer x1 (replicated | NATS default)" "$RUN/producer-x1.ours.json" "$RUN/producer-x1.nats.json" \
		"pinned producer x8 (replicated | NATS default)" "$RUN/producer-x8.ours.json" "$RUN/producer-x8.nats.json" \
		"pinned producer x8 fsync/batch (persisted | sync always + atomic)" "$RUN/producer-x8-fsync.ours.json" "$RUN/producer-x8-fsync.nats.json" \
		"pinned consumer x8 warm" "$RUN/consumer-x8-warm.ours.json" "$RUN/consumer-x8-warm.nats.json" \
		"producer x1 at ${LATENCY_RATE} MB/s (latency)" "$RUN/latency-x1.ours.json" "$RUN/latency-x1.nats.json"
	echo "(ratio: ours / NATS MB/s. p50/p99: per actor, averaged over the actors.)"
	grep -h "io backend" "$RUN"/producer-x1.iggy.log | sed 's/.*msg=//' | head -1
} | tee "$RUN/table.txt"

for r in producer-x8 consumer-x8-warm; do
	[[ -s $RUN/$r.top ]] || continue
	echo
	echo "-- our server's CPU profile, $r, without the logins (cumulative: $RUN/$r.cum)"
	sed -n '1,20p' "$RUN/$r.top"
done
