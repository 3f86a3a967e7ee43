# The README's two commands are `make run` and `make test`.
GO ?= go
BIN := bin
FUZZTIME ?= 5s

.PHONY: build run test test-short fuzz lint bench mutate coverage clean

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# Runs a standalone server on the embedded default configuration with the
# development credentials iggy/iggy, storing data under ./local_data.
run:
	$(GO) run ./cmd/iggy-server --with-default-root-credentials

# Every test: unit, codec vectors, fuzz seeds, end-to-end against the real binary.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 15m ./...

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
