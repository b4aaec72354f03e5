#!/usr/bin/env bash
# The whole test suite (called by `make test` after set-up, and by .ci/run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/env.sh
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))"
if [ -n "$unformatted" ]; then echo "gofmt: needs formatting:"; echo "$unformatted"; exit 1; fi
go vet ./...
go test -race -timeout 60m ./...
# The comparison benchmarks' module (its own go.mod): its equal-work tests.
(cd internal/bench && go vet ./... && go test -race ./...)
