# The README's two commands are `make run` and `make test`.
GO ?= go
BIN := bin
FUZZTIME ?= 5s

.PHONY: build run cluster cluster-stop test test-slow test-short fuzz lint bench mutate coverage clean docker docker-smoke

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# Runs a standalone server on the embedded default configuration with the
# development credentials iggy/iggy, storing data under ./local_data.
run:
	$(GO) run ./cmd/iggy-server --with-default-root-credentials

# Runs a replica set of three local nodes from one roster (scripts/cluster.sh):
# tcp 127.0.0.1:8090-8092, development credentials iggy/iggy, data and logs
# under ./local_cluster. `make cluster-stop` stops them.
cluster:
	scripts/cluster.sh start

cluster-stop:
	scripts/cluster.sh stop

# Builds the container image iggy-go:latest (Dockerfile) with docker, podman
# or buildah, from static binaries compiled here (BINARIES=build compiles
# them in the image's golang stage instead). docker-smoke runs it and pings it.
docker:
	scripts/docker.sh build

docker-smoke:
	scripts/docker.sh smoke

# Every test: unit, codec vectors, fuzz seeds, end-to-end against the real binary.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 15m ./...

# The corpus seeds marked slow (minutes of CPU each), which make test skips.
test-slow:
	IGGY_SIM_CORPUS_SLOW=1 $(GO) test -count=1 -timeout 60m -run TestCorpus ./sim/

test-short:
	$(GO) test -count=1 -short ./...

# Runs every fuzz target briefly (FUZZTIME each).
fuzz:
	@scripts/fuzz-all.sh $(FUZZTIME)

# Breaks the core one line at a time (scripts/mutate/mutations.txt) and
# requires the test named for each break to fail. On demand, not in CI.
mutate:
	$(GO) run ./scripts/mutate

# Requirement coverage: the IDs named by tests that ran and passed in a full
# test run, per area; skipped tests' IDs are listed as open.
coverage:
	@mkdir -p $(BIN)
	$(GO) test -count=1 -timeout 15m -json ./... > $(BIN)/test.json || true
	$(GO) run ./scripts/coverage -json $(BIN)/test.json

lint:
	@scripts/check-docs.sh
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./core/partition/ ./adapters/disk/

clean:
	rm -rf $(BIN)
