# Hootenanny: holler (MCP gateway) + hootenanny (workers) + hooteproto (the wire).
# `make run` starts the whole system; `make test` is what CI runs.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

MODULES := gen hooteproto holler hootenanny
BUF := bin/buf
STATICCHECK := bin/staticcheck
GO_TEST_FLAGS ?= -race -count=1
# The schema on main that `make breaking` compares against.
BREAKING_AGAINST ?= .git\#branch=main

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

# buf is pinned in tools/go.mod, a module of its own outside go.work, so that its dependencies
# do not move the project's.
$(BUF): tools/go.mod tools/go.sum
	cd tools && GOWORK=off go build -o ../$(BUF) github.com/bufbuild/buf/cmd/buf

# staticcheck (honnef.co/go/tools) is pinned the same way, in a module of its own so that its
# golang.org/x/tools does not move buf's. Its checks are set in staticcheck.conf.
$(STATICCHECK): tools/staticcheck/go.mod tools/staticcheck/go.sum
	cd tools/staticcheck && GOWORK=off go build -o ../../$(STATICCHECK) honnef.co/go/tools/cmd/staticcheck

.PHONY: generate
generate: $(BUF) ## regenerate gen/ from proto/
	@# protoc-gen-hoot is built from this workspace and reads the schema's options through
	@# gen/hoot/v1, so gen/ is replaced only after a whole pass has succeeded; the second pass
	@# sees options that the first one may just have changed.
	@for pass in 1 2; do \
		out=$$(mktemp -d); \
		$(BUF) generate --output "$$out" || { rm -rf "$$out"; exit 1; }; \
		rm -rf gen/hoot; cp -R "$$out/gen/hoot" gen/hoot; rm -rf "$$out"; \
	done

# The Ethereum execution API's OpenRPC description (see README, Upstream wrappers).
ETH_SPEC ?= ../shared/upstreams/ethereum-execution-apis/src

.PHONY: upstream-eth
upstream-eth: $(BUF) ## refresh the eth wrapper from the execution API's description and its manifest, then regenerate
	go run ./hootenanny/cmd/upstreamgen -upstream eth -spec $(ETH_SPEC)
	$(MAKE) generate

.PHONY: checkgenerate
checkgenerate: generate ## fail if gen/ differs from what proto/ generates
	@if [ -n "$$(git status --porcelain -- gen)" ]; then \
		git status --porcelain -- gen; git diff --stat -- gen; \
		echo "gen/ is not what proto/ generates: run 'make generate' and commit the result"; exit 1; fi

.PHONY: lint
lint: $(BUF) $(STATICCHECK) ## buf lint, buf format, gofmt, go vet and staticcheck
	$(BUF) lint
	$(BUF) format --diff --exit-code
	@out=$$(gofmt -l $(MODULES) bench); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet $(addsuffix /...,$(addprefix ./,$(MODULES)))
	cd bench && GOWORK=off go vet ./...
	$(STATICCHECK) $(addsuffix /...,$(addprefix ./,$(MODULES)))
	cd bench && GOWORK=off ../$(STATICCHECK) ./...

.PHONY: breaking
breaking: $(BUF) ## buf breaking against the schema on main
	@if git rev-parse --verify -q main:proto >/dev/null; then \
		$(BUF) breaking --against '$(BREAKING_AGAINST)'; \
	else echo "breaking: main has no schema yet, nothing to compare"; fi

.PHONY: build
build: ## build bin/holler and bin/hootenanny
	go build -o bin/holler ./holler/cmd/holler
	go build -o bin/hootenanny ./hootenanny/cmd/hootenanny

.PHONY: test
test: checkgenerate lint breaking build abc-compare midi-roundtrip hear ## everything CI checks
	@# The tests run under tools/testservers.sh: a throwaway PostgreSQL and versitygw (S3) on
	@# 127.0.0.1 for the fleet storage tests, stopped when the tests end.
	tools/testservers.sh go test $(GO_TEST_FLAGS) $(addsuffix /...,$(addprefix ./,$(MODULES)))
	@# The benchmark harness is a module of its own (see README, Speed); its tests keep it honest.
	cd bench && GOWORK=off go test $(GO_TEST_FLAGS) ./...

.PHONY: test-short
test-short: ## the quick tier while you work (about a minute): every package's tests with -short, no race detector, no servers
	@# -short skips the tests that wait out worker liveness, start worker processes or render
	@# the corpus; the fleet tests skip without the servers. make test runs everything.
	go test -short -count=1 $(addsuffix /...,$(addprefix ./,$(MODULES)))

.PHONY: run-fleet
run-fleet: build ## two gateways and three workers on a throwaway PostgreSQL and object store; Ctrl-C stops all
	tools/testservers.sh tools/fleet.sh

.PHONY: testservers
testservers: ## PostgreSQL and versitygw on 127.0.0.1 for fleet tests; prints the exports, Ctrl-C stops them
	tools/testservers.sh

.PHONY: hear
hear: ## render the ABC corpus with the General MIDI SoundFont and print how its onsets agree with the MIDI's
	@test -f /usr/share/sounds/sf2/TimGM6mb.sf2 || { echo "hear needs the General MIDI SoundFont: apt-get install timgm6mb-soundfont"; exit 1; }
	@# Without the race detector, which slows the synthesiser tenfold; the test is built only so.
	go test -count=1 -v -run 'TestOnsetsAgree' ./hootenanny/internal/synth | grep -v -e '^=== '

.PHONY: abc-compare
abc-compare: ## convert the ABC corpus with abc2midi and with hootenanny, and print their agreement (default playing and melody only)
	@command -v abc2midi >/dev/null || { echo "abc-compare needs abc2midi, the reference converter: apt-get install abcmidi"; exit 1; }
	@# -v prints the agreement reports: TestAgreement over the project's tunes, TestDevCorpusAgreement per
	@# collection of the development corpus (shared/corpora/abc-music21 or ABC_DEV_CORPUS; skipped when absent).
	go test -count=1 -tags abc2midi -v -skip Roundtrip ./hootenanny/internal/abccorpus | grep -v -e '^=== ' -e '^--- PASS' -e '^    --- PASS'

.PHONY: abc-warnings
abc-warnings: ## parse the development corpus (shared/corpora/abc-music21) as abc_validate does and print its warnings by kind and collection, each against its ceiling
	@# Skipped with a message where the corpus is absent. ABC_WARNINGS_SAMPLE=n prints n warnings
	@# of each kind with their line, ABC_WARNINGS_KIND=name only that kind's (docs/abc-warnings.md).
	@log=$$(mktemp); go test -count=1 -v -run 'TestDevCorpusWarnings' ./hootenanny/internal/abccorpus >$$log 2>&1; status=$$?; \
		grep -v -e '^=== ' -e '^--- PASS' $$log; rm -f $$log; exit $$status

.PHONY: midi-roundtrip
midi-roundtrip: ## take the ABC corpus to MIDI (abc2midi), back to ABC with midi2abc and with midi_to_abc, to MIDI again, and print how many notes each keeps
	@command -v abc2midi >/dev/null && command -v midi2abc >/dev/null || { echo "midi-roundtrip needs abc2midi and midi2abc: apt-get install abcmidi"; exit 1; }
	@# TestRoundtrip over the project's tunes (both playings), TestDevCorpusRoundtrip over the whole
	@# development corpus where it is present (about a minute and a half on two cores;
	@# MIDI_ROUNDTRIP_EVERY=n takes every n-th tune). Each fails where midi_to_abc keeps fewer notes
	@# than midi2abc. The status is go test's, not grep's.
	@log=$$(mktemp); go test -count=1 -tags abc2midi -v -run Roundtrip ./hootenanny/internal/abccorpus >$$log 2>&1; status=$$?; \
		grep -v -e '^=== ' -e '^--- PASS' -e '^    --- PASS' $$log; rm -f $$log; exit $$status

.PHONY: analyze-corpus
analyze-corpus: ## analyse every tune of the project's settings and of the development corpus (shared/corpora/abc-music21) with midi_analyze's analysis, and print the key (beside a plain Krumhansl-Kessler baseline), meter and chord accuracy against K:, M: and the chord symbols
	go test -count=1 -v -run 'TestCorpus' ./hootenanny/internal/analysis | grep -v -e '^=== ' -e '^--- PASS'

.PHONY: run
run: build ## start holler on 127.0.0.1:8080 (MCP at /mcp) with a local worker; Ctrl-C stops both
	bin/holler serve --worker-command bin/hootenanny

.PHONY: bench
bench: ## speed: holler vs peers over HTTP, the wire, allocations per call, storage as it grows (~5 min)
	@# Under the test servers (PostgreSQL and S3 on loopback), which the storage part measures.
	cd bench && GOWORK=off ../tools/testservers.sh go run ./cmd/bench $(BENCH_FLAGS)

.PHONY: conformance
conformance: build ## the official MCP conformance suite (npm, pinned in package.json) against holler and a fixture worker, for 2025-11-25 and 2026-07-28
	npm ci --no-audit --no-fund --loglevel=error
	tools/conformance.sh $(CONFORMANCE_ARGS)

.PHONY: conformance-modern
conformance-modern: build ## only the suite's requirements of MCP 2026-07-28
	npm ci --no-audit --no-fund --loglevel=error
	CONFORMANCE_REQUIREMENTS=2026-07-28 tools/conformance.sh $(CONFORMANCE_ARGS)

.PHONY: clean
clean: ## remove built binaries
	rm -rf bin
