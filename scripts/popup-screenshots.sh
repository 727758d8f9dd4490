#!/bin/sh
# Takes docs/img's screenshots of the extension's popup (each panel, light and dark, and a page with
# the popup's boxes) with the popup's e2e tests in real Chromium with the real extension and
# service (e2e/popup_test.go, e2e/popup_agents_test.go, e2e/confirm_test.go), then writes docs/img/popup-screenshots.json:
# the popup files they were taken from. extension/test/screenshots.test.mjs fails when a popup file
# changed and this was not run again: run it after changing the popup, and commit docs/img.
set -eu
cd "$(dirname "$0")/.."

# The tab group titles start with an emoji (🤖, ✋, 💤): the screenshots need a colour emoji font.
# Only this script installs it (Debian's package); the test suite does not need it.
if ! fc-list 2>/dev/null | grep -q 'Noto Color Emoji'; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  if command -v apt-get >/dev/null; then
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fonts-noto-color-emoji ||
      { $sudo apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fonts-noto-color-emoji; }
  else
    echo "popup-screenshots: install a colour emoji font (Noto Color Emoji) first" >&2
    exit 1
  fi
fi

# Taken into a fresh folder, then moved in whole: a failed run leaves docs/img as it was.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
EGOHOST_SCREENSHOTS="$out" CI=true go test -count=1 -run 'TestPopupPanelsInChromium|TestPopupStopAllAutomation|TestPopupAgentsTab|TestConfirmInPopup' ./e2e
mkdir -p docs/img
rm -f docs/img/popup-*.png docs/img/page-highlight.png
cp "$out"/*.png docs/img/
node scripts/popup-sources.mjs write docs/img
ls -l docs/img
