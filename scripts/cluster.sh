#!/usr/bin/env bash
# cluster.sh: a local replica set of three iggy-server processes from one
# roster file, with the development credentials iggy/iggy.
#
#   scripts/cluster.sh start     # build, write the roster, start nodes 0..2
#   scripts/cluster.sh status    # which nodes run, and their client ports
#   scripts/cluster.sh stop      # SIGTERM every node by its PID, then wait
#
# Node i listens for clients on tcp 8090+i, quic 8080+i, http 3000+i and
# websocket 8070+i, and for its peers on tcp_replica 8100+i, all on
# 127.0.0.1 (CLUSTER_NODES=5 for five). Everything lives under CLUSTER_DIR (default ./local_cluster):
# config.toml (the roster every node reads), node-i/ (its data), node-i.log
# and node-i.pid. Start again after a stop and the nodes recover from their
# data; delete CLUSTER_DIR for a new cluster. The replica links are
# plaintext without cluster.auth (development only).
set -euo pipefail

dir=${CLUSTER_DIR:-./local_cluster}
nodes=${CLUSTER_NODES:-3} # 1..10: the port ranges below do not overlap
bin=$dir/iggy-server

roster() {
	cat <<TOML
[tcp]
address = "127.0.0.1:8090"
[quic]
address = "127.0.0.1:8080"
[http]
address = "127.0.0.1:3000"
[http.jwt]
# One bearer secret on every node: a token from any node works on all, and
# a node relays HTTP partition calls to the partition's primary (development only).
encoding_secret = "local-cluster-development-secret"
[websocket]
address = "127.0.0.1:8070"

[cluster]
enabled = true
name = "local-cluster"
TOML
	for i in $(seq 0 $((nodes - 1))); do
		cat <<TOML

[[cluster.nodes]]
name = "node-$i"
ip = "127.0.0.1"
replica_id = $i
ports = { tcp = $((8090 + i)), quic = $((8080 + i)), http = $((3000 + i)), websocket = $((8070 + i)), tcp_replica = $((8100 + i)) }
TOML
	done
}

running() { [[ -f $dir/node-$1.pid ]] && kill -0 "$(cat "$dir/node-$1.pid")" 2>/dev/null; }

start() {
	mkdir -p "$dir"
	go build -o "$bin" ./cmd/iggy-server
	roster >"$dir/config.toml"
	for i in $(seq 0 $((nodes - 1))); do
		if running "$i"; then
			echo "node $i already runs (pid $(cat "$dir/node-$i.pid"))"
			continue
		fi
		IGGY_CONFIG_PATH=$dir/config.toml IGGY_SYSTEM_PATH=$dir/node-$i \
			"$bin" --replica-id "$i" --with-default-root-credentials >"$dir/node-$i.log" 2>&1 &
		echo $! >"$dir/node-$i.pid"
		echo "node $i: pid $!, tcp 127.0.0.1:$((8090 + i)), http 127.0.0.1:$((3000 + i)), log $dir/node-$i.log"
	done
	echo "stop with: scripts/cluster.sh stop (or make cluster-stop)"
}

stop() {
	for i in $(seq 0 $((nodes - 1))); do
		if running "$i"; then
			kill -TERM "$(cat "$dir/node-$i.pid")"
		fi
	done
	for i in $(seq 0 $((nodes - 1))); do
		while running "$i"; do sleep 0.1; done
		rm -f "$dir/node-$i.pid"
	done
	echo "stopped"
}

status() {
	for i in $(seq 0 $((nodes - 1))); do
		if running "$i"; then
			echo "node $i: running (pid $(cat "$dir/node-$i.pid")), tcp 127.0.0.1:$((8090 + i))"
		else
			echo "node $i: stopped"
		fi
	done
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) status ;;
*)
	echo "usage: $0 start|stop|status" >&2
	exit 2
	;;
esac
