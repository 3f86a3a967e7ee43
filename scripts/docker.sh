#!/usr/bin/env bash
# Builds the iggy-go container image (Dockerfile) and, with "smoke", runs it:
# start, `iggy ping` from the host and inside the container, stop.
#
#   scripts/docker.sh build   # make docker
#   scripts/docker.sh smoke   # make docker-smoke
#
# ENGINE picks docker, podman or buildah (default: the first that works).
# BINARIES=prebuilt (the default) compiles the static binaries here into
# bin/docker/ and copies them into the image, so no base image is pulled;
# BINARIES=build compiles them in the Dockerfile's golang stage instead.
set -euo pipefail

image=${IMAGE:-iggy-go:latest}
binaries=${BINARIES:-prebuilt}

engine() {
	if [[ -n ${ENGINE:-} ]]; then
		echo "$ENGINE"
		return
	fi
	if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		echo docker
	elif command -v podman >/dev/null; then
		echo podman
	elif command -v buildah >/dev/null; then
		echo buildah
	else
		echo "no container engine: install docker, podman or buildah" >&2
		exit 1
	fi
}

static_binaries() {
	rm -rf bin/docker
	mkdir -p bin/docker/data
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o bin/docker/ ./cmd/iggy-server ./cmd/iggy
	cp /etc/ssl/certs/ca-certificates.crt bin/docker/ca-certificates.crt
}

build() {
	local e
	e=$(engine)
	if [[ $binaries == prebuilt ]]; then
		static_binaries
	fi
	case $e in
	buildah) buildah bud --format docker --build-arg BINARIES="$binaries" -t "$image" . ;;
	podman) podman build --format docker --build-arg BINARIES="$binaries" -t "$image" . ;;
	*) "$e" build --build-arg BINARIES="$binaries" -t "$image" . ;;
	esac
	echo "built $image with $e (binaries: $binaries)"
}

# smoke runs the image on a loopback port and pings it. Hosts that forbid
# raising rlimits or hybrid cgroups need RUN_ARGS, e.g. for podman inside a
# container: RUN_ARGS="--ulimit nofile=16384:16384 --ulimit nproc=4096:4096"
# and PODMAN_RUNTIME=runc.
smoke() {
	local e name port
	e=$(engine)
	[[ $e == buildah ]] && e=podman
	if [[ $e == podman && -n ${PODMAN_RUNTIME:-} ]]; then
		e="podman --runtime $PODMAN_RUNTIME"
	fi
	name=iggy-smoke-$$
	port=${PORT:-18090}
	# shellcheck disable=SC2086
	$e run -d --name "$name" -p "127.0.0.1:$port:8090" ${RUN_ARGS:-} \
		-e IGGY_ROOT_USERNAME=smoke -e IGGY_ROOT_PASSWORD=smoke-password "$image" >/dev/null
	# shellcheck disable=SC2064 # expand now: the locals are gone at exit
	trap "$e rm -f $name >/dev/null" EXIT
	for _ in $(seq 50); do
		if bin/docker/iggy --address "127.0.0.1:$port" --connect-timeout 1s ping >/dev/null 2>&1; then
			break
		fi
		sleep 0.2
	done
	bin/docker/iggy --address "127.0.0.1:$port" ping
	$e exec "$name" /usr/local/bin/iggy ping
	bin/docker/iggy --address "127.0.0.1:$port" -u smoke -p smoke-password stats | head -3
	$e stop -t 10 "$name" >/dev/null
	echo "smoke test passed: $image started, answered iggy ping, stopped"
}

case ${1:-} in
build) build ;;
smoke) smoke ;;
*)
	echo "usage: $0 build|smoke" >&2
	exit 2
	;;
esac
