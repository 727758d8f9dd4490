#!/bin/sh
# Writes docs/img/popup-*.png: screenshots of each panel of the extension's popup, taken by the
# popup's e2e tests in real Chromium with the real extension and service (e2e/popup_test.go).
set -eu
cd "$(dirname "$0")/.."
mkdir -p docs/img
EGOHOST_SCREENSHOTS="$PWD/docs/img" CI=true go test -count=1 -run 'TestPopupPanelsInChromium|TestPopupStopAllAutomation|TestPopupAgentsTab' ./e2e
ls -l docs/img/popup-*.png docs/img/page-highlight.png
