SHELL := /bin/bash

# The two commands the README promises; each does its own set-up.
.PHONY: setup run test bench fmt vet

setup:
	bash scripts/setup.sh

# The main job: the explorer against the embedded demo app, offline.
run: setup
	. scripts/env.sh && go run ./examples/explorer -fail-on none

# Every test.
test: setup
	bash scripts/test.sh

bench:
	go test -run '^$$' -bench . -benchmem ./graph/... ./checkpoint/...

fmt:
	gofmt -l -w .

vet:
	go vet ./...
