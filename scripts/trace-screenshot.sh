#!/bin/sh
# Takes docs/img/trace.png, the trace viewer's page of a real trace (a paired agent fills and
# clicks on a small shop form; the click's step, its screenshots with the element boxed), with the
# trace's e2e test in real Chromium with the real extension and service (e2e/trace_test.go), then
# writes docs/img/trace-screenshot.json: the viewer files it was taken from.
# extension/test/screenshots.test.mjs fails when the viewer (internal/server/trace/html.go) changed and this was
# not run again: run it after changing the viewer, and commit docs/img.
set -eu
cd "$(dirname "$0")/.."

# Taken into a fresh folder, then moved in: a failed run leaves docs/img as it was.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
EGOHOST_SCREENSHOTS="$out" CI=true go test -count=1 -run 'TestTraceAgentSteps$' ./e2e
mkdir -p docs/img
cp "$out"/trace.png docs/img/
node scripts/popup-sources.mjs write-trace docs/img
ls -l docs/img/trace.png docs/img/trace-screenshot.json
