#!/usr/bin/env bash
# bench-ab.sh: our server at a base commit against the working tree, side by
# side in one run on this machine: pinned producer x8 and pinned consumer x8
# (warm), 1000-byte messages in batches of 1000. The two servers take turns
# (base, new, base, new, ...), never running at once, each on a fresh data
# directory, so load from other work on the machine falls on both alike.
# Besides MB/s it prints the server's CPU seconds per GB of payload over the
# measured run (iggy-bench --server-pid), the steadier figure on a shared
# machine.
#
#   scripts/bench-ab.sh                      # base HEAD, 2 rounds of 10 s
#   AB_BASE=abc123 AB_ROUNDS=3 AB_DURATION=5s scripts/bench-ab.sh
#   AB_WORKLOADS=producer scripts/bench-ab.sh   # producer, consumer, or both
#   AB_BASE=worktree AB_BASE_IO_BACKEND=pwrite AB_NEW_IO_BACKEND=uring \
#     scripts/bench-ab.sh                    # one build, two configurations
#   AB_WARMUP=3s scripts/bench-ab.sh        # steady state: MB/s and CPU after a warm-up
#   AB_RATE=500MB/s scripts/bench-ab.sh      # CPU per GB at one throughput for both
#   AB_PROFILE=1 scripts/bench-ab.sh       # CPU profiles of the servers (costs CPU)
#   AB_BASE=worktree AB_NEW_ENV="GOMAXPROCS=4" scripts/bench-ab.sh
#                                            # extra VAR=VALUE for a side's server
#
# The base is built from `git archive` of AB_BASE into the work directory
# (the repository is not touched); every process started is stopped by its
# PID. Per run: JSON and server log under AB_WORK (default .bench/ab).
#
# At 1 GB/s a 10 s run writes more than the kernel lets stay dirty (20% of
# memory) and ends up at the disk's speed; shorter runs (AB_DURATION=5s)
# measure the CPU path rather than the disk. The first seconds of a fresh
# server are slow too: its heap grows to its working size, and on this VM a
# first touch of a page costs about 18 us; AB_WARMUP leaves them out.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${AB_BASE:-HEAD}
ROUNDS=${AB_ROUNDS:-2}
DURATION=${AB_DURATION:-10s}
WARMUP=${AB_WARMUP:-0s}
RATE=${AB_RATE:-}
WORKLOADS=${AB_WORKLOADS:-producer consumer}
WORK=${AB_WORK:-$ROOT/.bench/ab}
ADDR=${AB_ADDR:-127.0.0.1:18390}
IO_BACKEND=${AB_IO_BACKEND:-auto}
BASE_IO_BACKEND=${AB_BASE_IO_BACKEND:-$IO_BACKEND}
NEW_IO_BACKEND=${AB_NEW_IO_BACKEND:-$IO_BACKEND}
read -r -a BASE_ENV <<<"${AB_BASE_ENV:-}"
read -r -a NEW_ENV <<<"${AB_NEW_ENV:-}"
START_TIMEOUT_S=30
STOP_TIMEOUT_S=20
ROUNDS_MAX=20

if [[ ! $DURATION =~ ^[0-9]+s$ ]]; then
	echo "AB_DURATION must be whole seconds, like 10s" >&2
	exit 2
fi
if ((ROUNDS < 1 || ROUNDS > ROUNDS_MAX)); then
	echo "AB_ROUNDS must be 1..$ROUNDS_MAX" >&2
	exit 2
fi

mkdir -p "$ROOT/.bench" "$WORK"
echo '*' >"$ROOT/.bench/.gitignore" # nothing under .bench is ever committed
cd "$ROOT"

echo "== building base ($BASE) and new (working tree)" >&2
mkdir -p "$WORK/bin"
go build -o "$WORK/bin/iggy-server.new" ./cmd/iggy-server
if [[ $BASE == worktree ]]; then
	cp "$WORK/bin/iggy-server.new" "$WORK/bin/iggy-server.base"
else
	rm -rf "$WORK/base-src"
	mkdir -p "$WORK/base-src"
	git archive "$BASE" | tar -x -C "$WORK/base-src"
	(cd "$WORK/base-src" && go build -o "$WORK/bin/iggy-server.base" ./cmd/iggy-server)
fi
go build -o "$WORK/bin/iggy-bench" ./cmd/iggy-bench # the new bench drives both

SERVER_PID=
stop_server() {
	local i
	[[ -n $SERVER_PID ]] || return 0
	if kill -TERM "$SERVER_PID" 2>/dev/null; then
		for ((i = 0; i < STOP_TIMEOUT_S * 10; i++)); do
			kill -0 "$SERVER_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL "$SERVER_PID" 2>/dev/null
	fi
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=
}
trap stop_server EXIT INT TERM

# start_server WHICH RUN: the WHICH binary on a fresh data directory.
start_server() {
	local which=$1 run=$2 data=$WORK/data i backend=$NEW_IO_BACKEND extra=("${NEW_ENV[@]}")
	[[ $which == base ]] && backend=$BASE_IO_BACKEND extra=("${BASE_ENV[@]}")
	rm -rf "$data"
	rm -f "$WORK/$run.log" # so the wait below never reads an earlier run's log
	env -i PATH="$PATH" HOME="${HOME:-/root}" \
		IGGY_SYSTEM_PATH="$data" IGGY_TCP_ADDRESS="$ADDR" IGGY_HTTP_ENABLED=false \
		IGGY_QUIC_ENABLED=false IGGY_WEBSOCKET_ENABLED=false IGGY_SYSTEM_IO_BACKEND="$backend" \
		${AB_PROFILE:+IGGYGO_CPU_PROFILE="$WORK/$run.prof"} "${extra[@]}" \
		"$WORK/bin/iggy-server.$which" --with-default-root-credentials >"$WORK/$run.log" 2>&1 &
	SERVER_PID=$!
	for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
		grep -q "tcp listening on" "$WORK/$run.log" 2>/dev/null && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$WORK/$run.log" >&2; return 1; }
		sleep 0.1
	done
	echo "server not ready after ${START_TIMEOUT_S}s" >&2
	return 1
}

# busy_cpu_s: CPU seconds the whole machine spent busy since boot (user,
# nice, system, irq, softirq, steal), to tell how much ran beside a run.
busy_cpu_s() {
	awk '/^cpu /{printf "%.2f", ($2+$3+$4+$7+$8+$9)/100}' /proc/stat
}

# wait_quiet: up to AB_QUIET_WAIT_S seconds for a second in which other work
# keeps less than a quarter of one core busy, so a pair of runs starts alike.
wait_quiet() {
	local i a b
	for ((i = 0; i < ${AB_QUIET_WAIT_S:-60}; i++)); do
		a=$(busy_cpu_s)
		sleep 1
		b=$(busy_cpu_s)
		awk -v a="$a" -v b="$b" 'BEGIN{exit !(b-a < 0.25)}' && return 0
	done
	echo "machine still busy after ${AB_QUIET_WAIT_S:-60}s; running anyway" >&2
}

COMMON=(--addr "$ADDR" --actors 8 --message-size 1000 --messages-per-batch 1000)

# measure WHICH WORKLOAD ROUND: one measured run into its JSON file.
measure() {
	local which=$1 workload=$2 round=$3 run=$2.$1.$3
	start_server "$which" "$run"
	if [[ $workload == consumer ]]; then
		# Warm pass: writes the data and reads it once; then the profile starts over.
		"$WORK/bin/iggy-bench" pinned-consumer "${COMMON[@]}" --duration 2s >/dev/null 2>"$WORK/$run.warm.err"
		# (SIGUSR1 restarts the profile; without one it would end the server)
		[[ -z ${AB_PROFILE:-} ]] || kill -USR1 "$SERVER_PID"
	fi
	local busy0 busy1
	busy0=$(busy_cpu_s)
	"$WORK/bin/iggy-bench" "pinned-$workload" "${COMMON[@]}" --duration "$DURATION" --warmup "$WARMUP" ${RATE:+--rate-limit "$RATE"} \
		--server-pid "$SERVER_PID" --json >"$WORK/$run.json" 2>"$WORK/$run.err" ||
		{ echo "iggy-bench failed ($run):" >&2; tail -5 "$WORK/$run.err" >&2; }
	busy1=$(busy_cpu_s)
	awk -v a="$busy0" -v b="$busy1" 'BEGIN{printf "%.2f\n", b-a}' >"$WORK/$run.busy"
	stop_server
	rm -rf "$WORK/data"
}

for workload in $WORKLOADS; do
	for ((round = 1; round <= ROUNDS; round++)); do
		wait_quiet
		for which in base new; do
			echo "== $workload x8, $which, round $round" >&2
			measure "$which" "$workload" "$round"
		done
	done
done

base_name=$BASE
[[ $BASE == worktree ]] || base_name=$(git rev-parse --short "$BASE")
echo "base $base_name (io $BASE_IO_BACKEND ${BASE_ENV[*]}), new (io $NEW_IO_BACKEND ${NEW_ENV[*]}) = working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(others-cpu-s: what the whole machine spent beyond the server and the bench during the run: kernel"
echo " threads working for them, such as writeback, and other work; high values mean a disturbed run;"
echo " it spans the warm-up too, which the server and bench columns leave out)"
printf '%-10s %-5s %5s %9s %14s %13s %8s %8s %13s\n' workload build round MB/s server-cpu-s s/GB-server s/GB-bench p99-ms others-cpu-s
for workload in $WORKLOADS; do
	for which in base new; do
		for ((round = 1; round <= ROUNDS; round++)); do
			f=$WORK/$workload.$which.$round.json
			[[ -s $f ]] || { printf '%-10s %-5s %5d %9s\n' "$workload" "$which" "$round" failed; continue; }
			python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("cpu") or {}
busy = float(open(sys.argv[5]).read())
others = busy - c.get("server_cpu_sec", 0) - c.get("bench_cpu_sec", 0)
print("%-10s %-5s %5s %9.1f %14.2f %13.3f %8.3f %8.1f %13.2f" % (sys.argv[2], sys.argv[3], sys.argv[4], r["mb_per_sec"],
    c.get("server_cpu_sec", 0), c.get("server_cpu_sec_per_gb", 0), c.get("bench_cpu_sec_per_gb", 0), r["p99_ms"], others))
' "$f" "$workload" "$which" "$round" "${f%.json}.busy"
		done
	done
done
