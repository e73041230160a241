# alertchat: `make run` (embedded local store) and `make test` (every test).
.PHONY: build run test bench vet docs install-man

build:
	go build -o bin/alertchat .

# Adds the sample GuardDuty alert to the embedded store and chats about it (needs GEMINI_API_KEY and
# a terminal; elsewhere pipe a question in, or: go run . chat -f testdata/alerts/guardduty.json -q "...").
run:
	go run . chat -f testdata/alerts/guardduty.json

# Unit, emulator-backed (Firestore and Pub/Sub emulators + in-process fake-gcs-server) and end-to-end tests.
test:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run ./internal/cmd/testrun -- go test -race -count=1 ./...

bench:
	go run ./internal/cmd/testrun -- go test -run='^$$' -bench=. -benchmem ./...

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
