# alertchat: `make run` (embedded local store) and `make test` (every test).
.PHONY: build run test test-deps cross bench vet eval docs install-man

# disable_grpc_modules: cloud.google.com/go/storage leaves out its gRPC DirectPath support (xDS,
# RLS), which alertchat does not use (it reads and writes objects over JSON/HTTP): a smaller binary
# and about a fifth less start-up work, which every shell completion (a run a TAB) pays.
GOTAGS := disable_grpc_modules

build:
	go build -tags $(GOTAGS) -o bin/alertchat .

# Adds the sample GuardDuty alert to the embedded store and chats about it (needs GEMINI_API_KEY and
# a terminal; elsewhere pipe a question in, or: go run . chat -f testdata/alerts/guardduty.json -q "...").
run:
	go run . chat -f testdata/alerts/guardduty.json

# Unit, emulator-backed (Firestore and Pub/Sub emulators + in-process fake-gcs-server) and end-to-end tests.
test: test-deps
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	@$(MAKE) --no-print-directory cross
	go run ./internal/cmd/testrun -- go test -race -count=1 -timeout=60m ./...

# The other platforms, checked from this one: every package and test vets for macOS (both
# processors) and Windows, and the product builds for Linux on ARM, so a call that exists on
# one system only fails here the day it is written. With the tag too, as make build uses it.
CROSS_VET := darwin/arm64 darwin/amd64 windows/amd64
CROSS_BUILD := linux/arm64
cross:
	@for p in $(CROSS_VET); do echo "go vet ./... for $$p"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} go vet ./... || exit 1; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} go build -tags $(GOTAGS) -o /dev/null . || exit 1; done
	@for p in $(CROSS_BUILD); do echo "go build ./... for $$p"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} go build ./... || exit 1; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} go build -tags $(GOTAGS) -o /dev/null . || exit 1; done

# The completion test checks the zsh and fish scripts with the shells themselves; CI needs both.
test-deps:
	@if ! command -v zsh >/dev/null || ! command -v fish >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish >/dev/null; \
	  else echo "zsh or fish is missing: the completion test skips it (CI=true fails instead)"; fi; \
	fi

bench:
	go run ./internal/cmd/testrun -- go test -run='^$$' -bench=. -benchmem ./...

# Runs the team's case pack (testdata/eval) against the real model and keeps the report in
# docs/eval-results/ (needs GEMINI_API_KEY; never part of make test). EVAL_MODELS=a,b compares.
eval:
	@if [ -z "$$GEMINI_API_KEY$$GOOGLE_API_KEY" ]; then echo "make eval asks the real model: set GEMINI_API_KEY (skipped)"; exit 0; fi; \
	mkdir -p docs/eval-results; d=$$(mktemp -d); \
	out=docs/eval-results/$$(date -u +%Y-%m-%d)-$$(echo $${EVAL_MODELS:-gemini-3.8-flash} | tr ',' '+').json; \
	go run . --data-dir "$$d" --model "$${EVAL_MODELS:-gemini-3.8-flash}" eval -f testdata/eval/cases.jsonl --repeat $${EVAL_REPEAT:-3} -o json > "$$out"; \
	code=$$?; rm -rf "$$d"; echo "report: $$out"; exit $$code

# The command reference (docs/reference/) and the man pages (docs/man/), generated from the command
# definitions; a test fails when the committed ones are stale.
docs:
	go run ./internal/cmd/gen-docs -dir docs

# Installs the man pages: man alertchat-history-search. PREFIX=$HOME/.local needs no root (man
# finds ~/.local/share/man when ~/.local/bin is on PATH).
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man/man1
install-man:
	mkdir -p $(MANDIR)
	install -m 0644 docs/man/*.1 $(MANDIR)/
