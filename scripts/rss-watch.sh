#!/usr/bin/env bash
# rss-watch.sh: the resident memory of our server over a long pinned-producer
# run, to check that it stays flat (issue 5: "RSS flat over a 10-minute
# producer run"). It builds the server and iggy-bench, starts the server on
# a fresh temporary data directory, runs the producer for RSS_DURATION and
# samples VmRSS of the server from /proc every RSS_INTERVAL seconds. It
# prints every sample, then min, max, last and the first-to-last change.
#
#   scripts/rss-watch.sh                       # 10 minutes, 8 producers
#   RSS_DURATION=60s RSS_ACTORS=2 scripts/rss-watch.sh
#
# The data directory is deleted at the end; the server is stopped by its PID.
# The producer writes its throughput times the duration (at 500 MB/s, 300 GB
# in 10 minutes), so each topic is capped (RSS_TOPIC_CAP, max_topic_size)
# with small segments and the server's cleaner runs every 10 s: the disk
# holds about actors x (cap + 10 s of writes).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=${RSS_DURATION:-600s}
INTERVAL=${RSS_INTERVAL:-10}
ACTORS=${RSS_ACTORS:-8}
ADDR=${RSS_ADDR:-127.0.0.1:18290}
TOPIC_CAP=${RSS_TOPIC_CAP:-2 GiB}
SEGMENT_SIZE=${RSS_SEGMENT_SIZE:-256 MiB}
WORK=${RSS_WORK:-$(mktemp -d /tmp/rss-watch.XXXXXX)}
START_TIMEOUT_S=30
STOP_TIMEOUT_S=20

if [[ ! $DURATION =~ ^[0-9]+s$ ]]; then
	echo "RSS_DURATION must be whole seconds, like 600s" >&2
	exit 2
fi

mkdir -p "$WORK/bin"
cd "$ROOT"
go build -o "$WORK/bin/" ./cmd/iggy-server ./cmd/iggy-bench

SERVER_PID=
BENCH_PID=
stop_pid() {
	local pid=$1 i
	[[ -n $pid ]] || return 0
	if kill -TERM "$pid" 2>/dev/null; then
		for ((i = 0; i < STOP_TIMEOUT_S * 10; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null || true
}
cleanup() {
	stop_pid "$BENCH_PID"
	stop_pid "$SERVER_PID"
	rm -rf "$WORK/data"
}
trap cleanup EXIT INT TERM

env -i PATH="$PATH" HOME="${HOME:-/root}" IGGY_SYSTEM_PATH="$WORK/data" IGGY_TCP_ADDRESS="$ADDR" \
	IGGY_HTTP_ENABLED=false IGGY_QUIC_ENABLED=false IGGY_WEBSOCKET_ENABLED=false \
	IGGY_DATA_MAINTENANCE_MESSAGES_INTERVAL="10 s" \
	"$WORK/bin/iggy-server" --with-default-root-credentials --fresh >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
	grep -q "tcp listening on" "$WORK/server.log" && break
	kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$WORK/server.log" >&2; exit 1; }
	sleep 0.1
done

"$WORK/bin/iggy-bench" pinned-producer --addr "$ADDR" --actors "$ACTORS" --message-size 1000 \
	--messages-per-batch 1000 --duration "$DURATION" --max-topic-size "$TOPIC_CAP" \
	--segment-size "$SEGMENT_SIZE" --json >"$WORK/bench.json" 2>"$WORK/bench.err" &
BENCH_PID=$!

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status"; }
samples=()
elapsed=0
echo "seconds rss_mib data_mib"
while kill -0 "$BENCH_PID" 2>/dev/null; do
	sleep "$INTERVAL"
	elapsed=$((elapsed + INTERVAL))
	kill -0 "$BENCH_PID" 2>/dev/null || break
	kb=$(rss_kb)
	samples+=("$kb")
	printf '%d %d %s\n' "$elapsed" $((kb / 1024)) "$(du -sm "$WORK/data" 2>/dev/null | cut -f1)"
done
wait "$BENCH_PID" || { echo "iggy-bench failed:" >&2; tail -5 "$WORK/bench.err" >&2; }
BENCH_PID=

if ((${#samples[@]} == 0)); then
	echo "no samples (run shorter than RSS_INTERVAL?)" >&2
	exit 1
fi
printf '%s\n' "${samples[@]}" | awk -v mb="$(grep -o '"mb_per_sec":[0-9.]*' "$WORK/bench.json" | head -1 | cut -d: -f2)" '
	NR == 1 { first = $1; min = $1; max = $1 }
	{ if ($1 < min) min = $1; if ($1 > max) max = $1; last = $1 }
	END {
		printf "samples %d: min %d MiB, max %d MiB, last %d MiB, first->last %+d MiB; producer %s MB/s\n",
			NR, min / 1024, max / 1024, last / 1024, (last - first) / 1024, mb
	}'
