#!/usr/bin/env bash
# The whole test suite (called by `make test` after set-up, and by .ci/run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/env.sh
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))"
if [ -n "$unformatted" ]; then echo "gofmt: needs formatting:"; echo "$unformatted"; exit 1; fi
# vet with the race detector's build settings: it compiles every package
# the way the race tests below need them, so they are compiled once, not
# twice (2.7 minutes less on 2 cores from an empty build cache). The one
# file that only a build without it compiles is vetted on its own.
go vet -race ./...
go vet ./checkpoint/
go test -race -timeout 60m ./...
# The comparison benchmarks' module (its own go.mod): its equal-work tests.
(cd internal/bench && go vet -race ./... && go test -race ./...)
