#!/usr/bin/env bash
# Runs every test: formatting and vet, the Go tests with the race detector
# (unit, fuzz seeds, and the real-Chromium end-to-end tests), and the
# extension's JavaScript tests. Set CI=true to make a missing Chromium fail.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" $unformatted >&2
  exit 1
fi
go mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy" >&2; exit 1; }
go vet ./...
# The per-OS files (registry, launchd, peer credentials) compile and vet
# on every OS they are for, so they never rot unseen on Linux CI.
for goos in windows darwin; do
  GOOS=$goos go vet ./...
done
staticcheck=$(command -v staticcheck || echo "$(go env GOPATH)/bin/staticcheck")
[ -x "$staticcheck" ] || { echo "staticcheck is not installed: run scripts/setup.sh" >&2; exit 1; }
"$staticcheck" ./...
node --test extension/test/ aria/test/
go test -race -count=1 -timeout 15m ./...
