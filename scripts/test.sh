#!/usr/bin/env bash
# Runs every test: formatting and vet, the Go tests with the race detector
# (unit, fuzz seeds, and the real-Chromium end-to-end tests), and the
# extension's JavaScript tests. Set CI=true to make a missing Chromium fail.
#
# The order is for a fresh clone on 2 cores (docs/testing.md has the
# figures): `go vet -race` first compiles every package once, with the
# flags `go test -race` uses, so the tests reuse that build; then the Go
# tests run (e2e, the longest, in its own process from the start) while
# staticcheck, the extension's tests and the vet for Windows and macOS
# run beside them at a lower priority, in the CPU the browser tests leave
# idle; every benchmark runs once, after its package's tests. Each job's output is printed whole, in a fixed order, at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" $unformatted >&2
  exit 1
fi
go mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy" >&2; exit 1; }
(cd scripts/crossvet && go mod tidy -diff >/dev/null) || { echo "scripts/crossvet's go.mod/go.sum are not tidy: run go mod tidy there" >&2; exit 1; }
staticcheck=$(command -v staticcheck || echo "$(go env GOPATH)/bin/staticcheck")
[ -x "$staticcheck" ] || { echo "staticcheck is not installed: run scripts/setup.sh" >&2; exit 1; }

vet_start=$SECONDS
go vet -race ./...
vet_secs=$((SECONDS - vet_start))
# Every go test below runs with -vet=off: go test's own vet is a subset of
# the analyzers go vet just ran on the same packages and their tests
# (measured in a cold cache after it: 22 s of CPU for nothing).
# Every test binary, and the binaries e2e runs, link with -ldflags=-w: no
# DWARF, which no test reads (stack traces and race reports come from the
# binary's own tables); linking the 66 race-built test binaries took 71.5
# s of CPU with it, 52.9 without (docs/testing.md).
nodwarf=-ldflags=-w

# A race-built process sleeps a second before it exits (the race
# runtime's atexit_sleep_ms, to catch races of goroutines still running
# then): a second per test binary, and per CLI call and relay in e2e,
# which starts hundreds. Races show up while the processes run.
export GORACE="atexit_sleep_ms=0${GORACE:+ $GORACE}"

logs=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$logs"' EXIT
# cpu_of FILE: the seconds of CPU (user + system) of the children in
# FILE, the output of bash's times (run in the shell whose children they
# are: in a pipe it would run in a new shell that has none).
cpu_of() { awk 'NR == 2 {for (i = 1; i <= 2; i++) {split($i, t, "m"); s += t[1] * 60 + t[2]} printf "%.0f", s}' "$1"; }
# wait_for PID: until the job PID (another subshell's child) has ended.
wait_for() { while kill -0 "$1" 2>/dev/null; do sleep 1; done; }
# job NAME CMD...: runs CMD in the background, its output to NAME's log,
# its exit code and seconds to NAME's status.
job() {
  local name=$1
  shift
  (
    set +e
    start=$SECONDS
    "$@" >"$logs/$name" 2>&1
    rc=$?
    # times' second line: the CPU the job's processes used (user, system);
    # run in this shell (a pipe would fork a shell with no children).
    times >"$logs/$name.times"
    cpu=$(cpu_of "$logs/$name.times")
    echo "$rc $((SECONDS - start)) $cpu" >"$logs/$name.status"
  ) &
  pids+=($!)
}
# e2e in two processes of about equal work: its tests mostly wait on
# Chromium (one process keeps less than a core busy), so two halves take
# about half the time. Each has its own shared chains. The tests are dealt
# heaviest first to the half with less so far, by the mean of the CPU and
# wall seconds each took in scripts/e2e-cpu.txt (3 for a test not
# listed), so that both halves have as much to compute and to wait for;
# the tests on one
# shared chain of a config (those that call originsChain(t), or another
# such xxxChain(t) helper) go to one half together, so that chain starts
# once. -short: the load test sends fewer calls (8 × 72 at once, 8 × 24
# in its other shapes; its figures in docs/benchmarks.md are the full run's).
e2e_split=$(awk -v wf=scripts/e2e-cpu.txt '
  BEGIN { while ((getline l < wf) > 0) if (l ~ /^Test/) { n = split(l, f, " "); w[f[1]] = n > 2 ? (f[2] + f[3]) / 2 : f[2] } }
  /^func / { cur = "" }
  /^func Test[A-Za-z0-9_]*\([a-z]+ \*testing\.T\)/ { cur = $2; sub(/\(.*/, "", cur); item[cur] = cur; next }
  cur != "" && match($0, /[a-z][A-Za-z]*Chain\(t\)/) {
    h = substr($0, RSTART, RLENGTH - 3)
    if (h != "useSharedChain" && h != "startChain" && h != "endSharedChain") item[cur] = h
  }
  END {
    for (t in item) { iw[item[t]] += (t in w) ? w[t] : 3; m[item[t]] = m[item[t]] "|" t }
    for (i in iw) printf "%s %s %s\n", iw[i], i, substr(m[i], 2)
  }' e2e/*_test.go | sort -k1,1gr -k2,2 | awk '{ h = (s[1] <= s[0]) ? 1 : 0; s[h] += $1; print h, $3 }')
[ "$(echo "$e2e_split" | tr '|' '\n' | wc -l)" -gt 10 ] || { echo "test.sh: found no e2e tests to run" >&2; exit 1; }
e2e_half() { echo "$e2e_split" | awk -v h="$1" '$1 == h {print $2}' | paste -sd'|'; }
# e2e's test binary and the binaries it tests (egohost, egohost-host),
# built once for both halves: each half's go test compiled and linked the
# same, and its TestMain built the binaries again (after a change, about
# 19 s of CPU per half; 5 s even when the build cache has them all). The
# halves run the test binary in e2e/, as go test would, once it is built,
# and TestMain takes the binaries from EGOHOST_E2E_BIN.
# GOGC=400: a build collects garbage less often (as .ci/run's).
job e2e-build env GOGC=400 sh -c "go test -vet=off -race $nodwarf -c -o '$logs/e2e.test' ./e2e/ && go build -race $nodwarf -o '$logs/e2e-bin/' ./cmd/egohost ./cmd/egohost-host"
e2e_build_pid=${pids[-1]}
e2e_run() {
  wait_for "$e2e_build_pid"
  read -r rc _ <"$logs/e2e-build.status"
  [ "$rc" = 0 ] || { echo "e2e's test binary did not build (see e2e-build)"; return 1; }
  cd e2e && EGOHOST_E2E_BIN="$logs/e2e-bin" "$logs/e2e.test" -test.count=1 -test.short -test.timeout=20m -test.run "^($(e2e_half "$1"))\$"
}
job e2e-1 e2e_run 1
job e2e-2 e2e_run 0
# The other packages in two jobs: those whose tests drive Chromium (they
# import internal/testkit/browsertest), one package at a time, and the rest, which
# drive no browser, beside them. One job of all of them, one package at a
# time, was the run's longest (554 s of a 598 s run): its packages' links
# and its browser-free tests waited for its browser tests.
all_pkgs=$(go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | awk '$1 !~ /\/e2e$/')
browser_pkgs=$(echo "$all_pkgs" | awk '$1 ~ /\/internal\/testkit\/browsertest$/ || / github.com\/egohost\/egohost\/internal\/testkit\/browsertest( |$)/ {print $1}')
other_pkgs=$(echo "$all_pkgs" | awk '{print $1}' | grep -vxF "$browser_pkgs")
[ -n "$browser_pkgs" ] && [ -n "$other_pkgs" ] || { echo "test.sh: found no packages that drive Chromium, or none that do not" >&2; exit 1; }
# Every benchmark of the packages once, for its correctness, not its
# timing: the code behind docs/benchmarks.md's figures still runs. 1x:
# the testing package's probe run (b.N == 1) is then the only run, where
# 2x ran each benchmark's setup twice and its body three times (none of
# these packages' benchmarks skips b.N == 1; e2e's long ones do, hence
# 2x there). e2e's benchmarks (14 chains and the
# peers' comparisons: 624 s alone on 2 cores) do not fit CI's 10 minutes;
# run them with: go test -short -run '^$' -bench . -benchtime 2x ./e2e/
# Each package's benchmarks run in its tests' process, after the tests
# (one link, one start and, for the packages that drive Chromium, one
# shared browser a package fewer than a go test of their own). Those that
# drive Chromium run with -short: their benchmarks take fewer items (the
# Playwright comparison still runs); none of their other functions reads it (checked here: each
# testing.Short() in their test files is inside a func Benchmark).
short_outside=$(for pkg in $browser_pkgs; do
  dir=${pkg#github.com/egohost/egohost}
  awk '/^func / { f = $2 } /testing\.Short\(\)/ && f !~ /^Benchmark/ { print FILENAME ": " f }' ".${dir:-/}"/*_test.go
done)
[ -z "$short_outside" ] || { echo "test.sh: the packages that drive Chromium run their tests with -short (for their benchmarks), and these read it: $short_outside" >&2; exit 1; }
# unit-other starts once e2e-build has built the binaries: cmd/egohost's
# tests run them too (EGOHOST_E2E_BIN), instead of linking their own
# (when that build failed, they build their own: one failure, one report).
unit_other() {
  wait_for "$e2e_build_pid"
  read -r rc _ <"$logs/e2e-build.status"
  if [ "$rc" = 0 ]; then export EGOHOST_E2E_BIN="$logs/e2e-bin"; fi
  go test -vet=off -race $nodwarf -count=1 -timeout 15m -p 1 -bench . -benchtime 1x "$@"
}
job unit-other unit_other $(echo $other_pkgs)
job unit-browser go test -vet=off -race $nodwarf -count=1 -short -timeout 15m -p 1 -bench . -benchtime 1x $(echo $browser_pkgs)
job node nice -n 10 node --test extension/test/ internal/engine/aria/test/
# staticcheck loads its packages' dependencies from export data that it
# has go list build: with -race, the build go vet -race just made (measured
# in a cold cache after it: 54 s of CPU instead of 160 s; without, it
# compiled every dependency a second time). The one difference in what it
# checks: the tests' raceDetector constant is read from race_test.go, not
# norace_test.go, two one-line files.
# GOGC=400: it keeps every package's syntax trees and SSA; fewer
# collections cost it 10-15 % less CPU here (1.3 GB at most).
job staticcheck env GOFLAGS="-race${GOFLAGS:+ $GOFLAGS}" GOGC=400 nice -n 10 "$staticcheck" ./...
# The per-OS files (registry, launchd, peer credentials) type-check and
# pass go vet's analyzers on every OS they are for, so they never rot
# unseen on Linux CI: on Windows and macOS, the packages whose files there
# are not Linux's (one more, or one fewer). The others compile there as
# here: per_os_test.go keeps per-OS files from changing any package's API,
# and files every OS builds from using the standard library's per-OS API
# (syscall but the signal names every OS has).
# other_os_pkgs GOOS: those packages (lists of files, as go list prints
# them, sorted: a package's line differs when its files do).
other_os_pkgs() {
  awk 'NR == FNR { linux[$1] = $0; next } linux[$1] != $0 { print $1 }' \
    <(GOOS=linux go list -f '{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}' ./...) \
    <(GOOS=$1 go list -f '{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}' ./...)
}
windows_only=$(other_os_pkgs windows)
darwin_only=$(other_os_pkgs darwin)
[ -n "$windows_only" ] && [ -n "$darwin_only" ] || { echo "test.sh: no package has files of its own on Windows or on macOS: the other OSes' vet would check nothing" >&2; exit 1; }
# scripts/crossvet does it from source: go vet for another GOOS compiled
# that OS's standard library (101 s of CPU for both OSes in a cold cache,
# alone; this job 60–70 s in the run, its own build and test included). Its own module
# (golang.org/x/tools stays out of egohost's), built without -race: its
# dependencies are those staticcheck's build in scripts/setup.sh compiled.
# Its test checks it finds what it is for; it vets itself as it vets the
# others (go vet . cost 16 s of CPU, vetting x/tools for facts).
crossvet() {
  renice -n 10 -p "$BASHPID" >/dev/null # as the other jobs beside the tests
  (cd scripts/crossvet && go build -o "$logs/crossvet" . && go test -count=1 .) &&
    "$logs/crossvet" -goos linux -C scripts/crossvet . &&
    "$logs/crossvet" -goos windows $windows_only && "$logs/crossvet" -goos darwin $darwin_only
}
job vet-other-os crossvet
wait

failed=()
times >"$logs/all.times"
echo "--- go vet -race: ${vet_secs}s; all of test.sh: ${SECONDS}s, $(cpu_of "$logs/all.times")s of CPU"
for name in vet-other-os staticcheck node unit-other unit-browser e2e-build e2e-1 e2e-2; do
  read -r rc secs cpu <"$logs/$name.status"
  echo "--- $name: exit $rc after ${secs}s, ${cpu}s of CPU"
  cat "$logs/$name"
  [ "$rc" = 0 ] || failed+=("$name")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
