#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build, demo and test
# egohost: Debian's Chromium (never a downloaded browser), Fossil and
# Roundcube with Dovecot (real applications the e2e tests drive), the Go
# modules,
# and the npm peers (playwright-core, @playwright/mcp, agent-browser's native
# CLI) for the same-run benchmarks. Safe to rerun.
#
# scripts/setup.sh system installs only the Debian packages, scripts/setup.sh
# tools only the rest (which needs none of them): .ci/run runs the two at
# once, the packages' download beside the Go build.
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in
all | system | tools) ;;
*)
  echo "usage: scripts/setup.sh [system|tools]" >&2
  exit 2
  ;;
esac

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ "$part" != tools ]; then
  need=()
  if [ ! -x /usr/lib/chromium/chromium ] && ! command -v chromium >/dev/null 2>&1; then
    need+=(chromium)
  fi
  # Fossil (3 MB): a real web application the e2e tests drive (e2e/fossil_test.go).
  command -v fossil >/dev/null 2>&1 || need+=(fossil)
  # Roundcube and Dovecot's IMAP (about 40 MB with PHP): a real webmail the e2e
  # tests drive (e2e/roundcube_test.go), without recommends, and with php-cgi,
  # which satisfies Debian's php without Apache; dbconfig sets up no database
  # (the test makes its own SQLite one).
  webmail=()
  [ -f /usr/share/roundcube/index.php ] || webmail+=(roundcube-core roundcube-sqlite3 php-cgi)
  [ -x /usr/sbin/dovecot ] || webmail+=(dovecot-imapd)
  if [ ${#need[@]} -gt 0 ] || [ ${#webmail[@]} -gt 0 ]; then
    echo "setup: installing Debian's ${need[*]} ${webmail[*]} (a minute or two)..." >&2
    sudo_ apt-get update -qq
  fi
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  if [ ${#webmail[@]} -gt 0 ]; then
    echo "roundcube-core roundcube/dbconfig-install boolean false" | sudo_ debconf-set-selections
    DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq --no-install-recommends "${webmail[@]}" >/dev/null
  fi
fi
if [ "$part" = system ]; then
  echo "setup: system packages ok ($(/usr/lib/chromium/chromium --version 2>/dev/null || chromium --version))" >&2
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "setup: Go is not installed (need Go 1.26): https://go.dev/doc/install" >&2
  exit 1
fi
go mod download
(cd scripts/crossvet && go mod download) # the other OSes' vet in scripts/test.sh
# The linter scripts/test.sh runs, at the version it was made clean with.
go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
if command -v npm >/dev/null 2>&1; then
  # No install scripts: nothing is downloaded (agent-browser's would fetch a
  # binary it already ships); its native binary only needs its mode back.
  (cd bench && npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null &&
    chmod +x node_modules/agent-browser/bin/agent-browser-*)
else
  echo "setup: npm not found: the Playwright comparison benchmarks will not run" >&2
fi
if [ "$part" = tools ]; then
  echo "setup: tools ok ($(go version | cut -d' ' -f3))" >&2
else
  echo "setup: ok ($(/usr/lib/chromium/chromium --version 2>/dev/null || chromium --version), $(go version | cut -d' ' -f3))" >&2
fi
