#!/usr/bin/env bash
# bench-cluster.sh: a single node and a local replica set of three, side by
# side in one run on this machine (issue 13 item 8): pinned producer x8 and
# pinned consumer x8, 1000-byte messages in batches of 1000, at topic
# durability `replicated` and `persisted`. Each measurement starts its
# server(s) on fresh data directories and stops them after; the cluster's
# actors connect to their partition's primary (iggy-bench --addr with the
# three nodes). It prints MB/s and msgs/s per run and the cluster/single
# ratio.
#
#   scripts/bench-cluster.sh                 # 10 s per measurement
#   BC_DURATION=5s BC_DURABILITIES=persisted scripts/bench-cluster.sh
#   BC_PROFILE=1 scripts/bench-cluster.sh    # CPU profile per server: BC_WORK/<run>.<node>.cpu
#   BC_LINKS=2 scripts/bench-cluster.sh      # replica links per peer
#
# Every process started is stopped by its PID. JSON, bench output and
# server logs go under BC_WORK (default .bench/cluster).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=${BC_DURATION:-10s}
DURABILITIES=${BC_DURABILITIES:-replicated persisted}
WORKLOADS=${BC_WORKLOADS:-producer consumer}
WORK=${BC_WORK:-$ROOT/.bench/cluster}
BASE_PORT=${BC_BASE_PORT:-18490} # node i: tcp BASE_PORT+i, tcp_replica BASE_PORT+10+i
NODES=3
LINKS=${BC_LINKS:-1} # cluster.coordinator.replica_connections_per_peer (at most the shard count)
START_TIMEOUT_S=30
STOP_TIMEOUT_S=20

mkdir -p "$ROOT/.bench" "$WORK"
echo '*' >"$ROOT/.bench/.gitignore" # nothing under .bench is ever committed
cd "$ROOT"
go build -o "$WORK/iggy-server" ./cmd/iggy-server
go build -o "$WORK/iggy-bench" ./cmd/iggy-bench

PIDS=()
stop_all() {
	local pid i
	for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do
		for ((i = 0; i < STOP_TIMEOUT_S * 10; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	PIDS=()
}
trap stop_all EXIT INT TERM

roster() {
	printf '[tcp]\naddress = "127.0.0.1:%d"\n[http]\nenabled = false\n[quic]\nenabled = false\n[websocket]\nenabled = false\n' "$BASE_PORT"
	printf '\n[cluster]\nenabled = true\nname = "bench-cluster"\n'
	printf '\n[cluster.coordinator]\nreplica_connections_per_peer = %d\n' "$LINKS"
	for ((i = 0; i < NODES; i++)); do
		printf '\n[[cluster.nodes]]\nname = "node-%d"\nip = "127.0.0.1"\nreplica_id = %d\nports = { tcp = %d, tcp_replica = %d }\n' \
			"$i" "$i" $((BASE_PORT + i)) $((BASE_PORT + 10 + i))
	done
}

# wait_ready LOG PID: until the server's TCP listener is up.
wait_ready() {
	local i
	for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
		grep -q "tcp listening on" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || { tail -20 "$1" >&2; return 1; }
		sleep 0.1
	done
	echo "server not ready after ${START_TIMEOUT_S}s ($1)" >&2
	return 1
}

# profile_env NAME: the variable that makes a server write its CPU profile
# (cmd/iggy-server/profile.go) when BC_PROFILE is set.
profile_env() {
	[[ -n ${BC_PROFILE:-} ]] && echo "IGGYGO_CPU_PROFILE=$WORK/${RUN:-run}.$1.cpu"
	return 0
}

# start SETUP: a fresh single node or replica set; sets ADDR, the bench
# --addr (not in a subshell: PIDS must keep the processes started).
start() {
	local setup=$1 i log
	rm -rf "$WORK/data"
	mkdir -p "$WORK/data"
	if [[ $setup == single ]]; then
		log=$WORK/single.log
		rm -f "$log" # so wait_ready never reads an earlier run's log
		env -i PATH="$PATH" HOME="${HOME:-/root}" IGGY_SYSTEM_PATH="$WORK/data/single" $(profile_env single) \
			IGGY_TCP_ADDRESS="127.0.0.1:$BASE_PORT" IGGY_HTTP_ENABLED=false IGGY_QUIC_ENABLED=false \
			IGGY_WEBSOCKET_ENABLED=false "$WORK/iggy-server" --with-default-root-credentials >"$log" 2>&1 &
		PIDS+=($!)
		wait_ready "$log" $! || return 1
		ADDR=127.0.0.1:$BASE_PORT
		return 0
	fi
	roster >"$WORK/data/config.toml"
	local addrs=()
	for ((i = 0; i < NODES; i++)); do
		log=$WORK/node-$i.log
		rm -f "$log"
		env -i PATH="$PATH" HOME="${HOME:-/root}" IGGY_CONFIG_PATH="$WORK/data/config.toml" $(profile_env "node-$i") \
			IGGY_SYSTEM_PATH="$WORK/data/node-$i" "$WORK/iggy-server" --replica-id "$i" \
			--with-default-root-credentials >"$log" 2>&1 &
		PIDS+=($!)
		addrs+=("127.0.0.1:$((BASE_PORT + i))")
	done
	for ((i = 0; i < NODES; i++)); do wait_ready "$WORK/node-$i.log" "${PIDS[$i]}" || return 1; done
	ADDR=$(IFS=,; echo "${addrs[*]}")
}

COMMON=(--actors 8 --message-size 1000 --messages-per-batch 1000)

for durability in $DURABILITIES; do
	for workload in $WORKLOADS; do
		for setup in single cluster; do
			run=$workload.$durability.$setup
			RUN=$run
			echo "== $workload x8, $durability, $setup" >&2
			start "$setup"
			"$WORK/iggy-bench" "pinned-$workload" "${COMMON[@]}" --addr "$ADDR" --durability "$durability" \
				--duration "$DURATION" --json >"$WORK/$run.json" 2>"$WORK/$run.err" ||
				{ echo "iggy-bench failed ($run):" >&2; tail -5 "$WORK/$run.err" >&2; }
			stop_all
		done
	done
done

echo "$(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $DURATION per run; commit $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')"
printf '%-9s %-11s %10s %10s %12s %12s %7s\n' workload durability single-MB/s cluster-MB/s single-msg/s cluster-msg/s ratio
for durability in $DURABILITIES; do
	for workload in $WORKLOADS; do
		python3 -c '
import json, sys
def load(f):
    try:
        return json.load(open(f))
    except Exception:
        return None
s, c = load(sys.argv[1]), load(sys.argv[2])
fmt = lambda r, k: "%.1f" % r[k] if r else "failed"
ratio = "%.0f%%" % (100 * c["mb_per_sec"] / s["mb_per_sec"]) if s and c and s["mb_per_sec"] else "-"
print("%-9s %-11s %10s %10s %12s %12s %7s" % (sys.argv[3], sys.argv[4], fmt(s, "mb_per_sec"), fmt(c, "mb_per_sec"),
    fmt(s, "msgs_per_sec"), fmt(c, "msgs_per_sec"), ratio))
' "$WORK/$workload.$durability.single.json" "$WORK/$workload.$durability.cluster.json" "$workload" "$durability"
	done
done
