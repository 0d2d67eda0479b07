# rdma-bench. `make test` runs the unit tests on this host, then the RDMA
# integration tests on soft-RoCE (in a QEMU VM when the host has no RDMA).
# `make bench` runs the main job: the RDMA-versus-TCP suite.
GO ?= go
BIN := rdma-bench
VERSION := $(shell git describe --tags --dirty 2>/dev/null || echo devel)
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: all build offline deps browser test unit integration vet fuzz bench bench-vs-perftest bench-tcp clean

all: build

# Debian/Ubuntu packages the build and the tests need.
deps:
	@scripts/deps.sh

# Debian's chromium, in which the unit tests open the HTML report.
browser:
	@scripts/browser.sh

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/rdma-bench

# The offline build: compare, plot, report and version in a static binary
# that starts without rdma-core; the commands that measure refuse (exit 2).
offline:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)-offline ./cmd/rdma-bench

vet:
	@test -z "$$(gofmt -l cmd pkg internal scripts)" || { gofmt -l cmd pkg internal scripts; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet ./cmd/rdma-bench
	@# The scripts' Go programs (//go:build ignore) are vetted one by one,
	@# so that a change of the packages they use cannot leave them broken.
	@for f in $$(grep -rl '^//go:build ignore' scripts); do $(GO) vet "$$f" || exit 1; done

# A missing browser fails the report's browser tests instead of skipping them.
# The CPU accuracy tests read the whole machine's CPU: they run alone, after
# the others, which run packages in parallel (without RDMA_BENCH_ACCURACY_CPU=1,
# as in a plain go test ./..., they skip). The offline build's tests
# (offline_test.go) and those of compare, plot, report and version run last
# under CGO_ENABLED=0, on the offline binary.
unit: deps browser vet
	RDMA_BENCH_REQUIRE_BROWSER=1 $(GO) test -race -count=1 -skip '^TestAccuracyCPU' ./...
	RDMA_BENCH_ACCURACY_CPU=1 $(GO) test -count=1 -run '^TestAccuracyCPU' ./cmd/rdma-bench
	CGO_ENABLED=0 $(GO) test -count=1 -run '^Test(Offline|Compare|Plot|Report|Version|History)' -skip 'InBrowser|PlotFlag' ./cmd/rdma-bench

integration: deps
	scripts/integration.sh

test: unit integration

# Every fuzz target of the repository (found by scripts/fuzz.sh, so new
# ones are included), FUZZTIME each: make fuzz FUZZTIME=1m.
FUZZTIME ?= 10s
fuzz: deps
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# Arguments for the suite: make bench ARGS="--sizes 64,4K -D 2".
bench: build
	scripts/bench.sh $(ARGS)

# The paired performance gate (rdma-bench gate) on soft-RoCE, in the VM
# where the host has no RDMA: make gate ARGS="--base-bin OLD/rdma-bench".
# Its status (0 pass, 1 fail, 3 undecided, 4 measurement failed) becomes
# make's 2 unless 0: CI calls scripts/gate.sh for the gate's own (docs/gate.md).
gate: build
	scripts/gate.sh $(ARGS)

bench-vs-perftest: build
	scripts/bench-vs-perftest.sh

bench-tcp: build
	scripts/bench-tcp.sh

clean:
	rm -rf $(BIN) $(BIN)-offline .build
