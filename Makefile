# The project's commands. `make check` is exactly what CI runs (.ci/run).
GO      ?= go
BIN     := bin/entire
PKGS    := ./...

.PHONY: help build test race lint fuzz bench check demo clean

help: ## Show this help.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

build: ## Build bin/entire (static: no dynamic loader on every hook's start).
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/entire

test: ## Run every test, including the testscript scenarios in testdata/scripts.
	$(GO) test -count=1 $(PKGS)

race: ## Run the tests under the race detector (includes the concurrency tests).
	$(GO) test -count=1 -race -timeout 40m $(PKGS)

lint: ## gofmt, go vet and staticcheck (pinned as a go.mod tool) must be clean.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)

fuzz: ## Run each fuzz target for a short while.
	$(GO) test -run '^$$' -fuzz FuzzReadFrom -fuzztime 20s ./events/journal/
	$(GO) test -run '^$$' -fuzz FuzzValid -fuzztime 20s ./events/jsonvalid/
	$(GO) test -run '^$$' -fuzz FuzzScanBytes -fuzztime 20s ./events/claudecode/
	$(GO) test -run '^$$' -fuzz FuzzParseHookInput -fuzztime 20s ./events/claudecode/
	$(GO) test -run '^$$' -fuzz FuzzCheckTranscript -fuzztime 20s ./events/claudecode/
	$(GO) test -run '^$$' -fuzz FuzzJSONL -fuzztime 20s ./engine/redact/
	$(GO) test -run '^$$' -fuzz FuzzElideLine -fuzztime 20s ./engine/
	$(GO) test -run '^$$' -fuzz FuzzParseIndexTree -fuzztime 20s ./gitexec/
	$(GO) test -run '^$$' -fuzz FuzzPackedReads -fuzztime 20s ./gitexec/
	for p in gemini cursor codex copilot opencode droid; do \
	  $(GO) test -run '^$$' -fuzz FuzzScan -fuzztime 20s ./events/$$p/ && \
	  $(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./events/$$p/ || exit 1; \
	done
	$(GO) test -run '^$$' -fuzz FuzzMergeLines -fuzztime 20s ./events/opencode/

bench: ## Run the Go benchmarks of the hot paths, then the end-to-end harness (bench-e2e).
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	$(GO) run ./cmd/entire-bench $(BENCH_E2E_FLAGS)

.PHONY: bench-e2e
bench-e2e: ## Time real sessions through the binary against git floors (BENCH_E2E_FLAGS=-quick for a smoke run).
	$(GO) run ./cmd/entire-bench $(BENCH_E2E_FLAGS)

check: lint test ## What CI runs.

demo: build ## Record a scripted Claude Code session in a scratch repository and explain the checkpoint.
	@sh testdata/demo.sh $(CURDIR)/$(BIN)

clean: ## Remove build output.
	rm -rf bin .demo
