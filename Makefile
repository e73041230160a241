# alertchat: `make run` (embedded local store) and `make test` (every test).
.PHONY: build run test bench vet

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
test:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run ./internal/cmd/testrun -- go test -race -count=1 ./...

bench:
	go run ./internal/cmd/testrun -- go test -run='^$$' -bench=. -benchmem ./...
