// docs/img's popup screenshots are of the popup as it is (issue 26): its manifest records the
// popup files they were taken from, and this fails when one changed and the screenshots were not
// taken again (scripts/popup-screenshots.sh takes them and writes the manifest).

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { MANIFEST, manifest, popupSources, staleness, TRACE_MANIFEST, traceManifest, traceStaleness } from "../../scripts/popup-sources.mjs";

const ext = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const img = path.join(ext, "..", "docs", "img");

test("popupSources: popup.html, what it loads and every module those import", () => {
  const files = popupSources(ext);
  for (const f of ["popup.html", "popup.css", "popup.js", "agentspanel.js", "agentsview.js", "pathview.js", "statusview.js", "errorhelp.js"]) {
    assert.ok(files.includes(f), `${f} in ${files}`);
  }
  assert.ok(!files.includes("background.js"), "the worker is not the popup");
});

test("the screenshots in docs/img are of the popup as it is now", () => {
  const stale = staleness(ext, img);
  assert.deepEqual(stale, [], `docs/img's screenshots are stale: run scripts/popup-screenshots.sh (it takes them in Chromium and writes docs/img/${MANIFEST})`);
});

test("docs/img/trace.png is of the trace viewer as it is now", () => {
  const stale = traceStaleness(path.join(ext, ".."), img);
  assert.deepEqual(stale, [], `docs/img/trace.png is stale: run scripts/trace-screenshot.sh (it takes it in Chromium and writes docs/img/${TRACE_MANIFEST})`);
});

test("traceStaleness names what changed: the viewer, the picture, a missing manifest", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "trace-shot-"));
  try {
    const root = path.join(dir, "repo");
    const shots = path.join(dir, "img");
    write(path.join(root, "internal/server/trace"), { "html.go": "package trace\n" });
    write(shots, { "trace.png": "png", "popup-x.png": "not the viewer's" });
    assert.deepEqual(traceStaleness(root, shots), [`${path.join(shots, TRACE_MANIFEST)} is missing`]);
    writeFileSync(path.join(shots, TRACE_MANIFEST), JSON.stringify(traceManifest(root, shots)));
    assert.deepEqual(traceStaleness(root, shots), []);
    write(path.join(root, "internal/server/trace"), { "html.go": "package trace\n// changed\n" });
    assert.deepEqual(traceStaleness(root, shots), ["viewer file internal/server/trace/html.go changed since the screenshots"]);
    write(shots, { "trace.png": "taken again" });
    writeFileSync(path.join(shots, TRACE_MANIFEST), JSON.stringify(traceManifest(root, shots)));
    write(shots, { "trace.png": "edited by hand" });
    assert.deepEqual(traceStaleness(root, shots), ["screenshot trace.png changed since the screenshots"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("staleness names what changed: a popup file, a screenshot, a missing manifest", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "shots-"));
  try {
    const fakeExt = path.join(dir, "ext");
    const shots = path.join(dir, "img");
    const files = {
      "popup.html": '<link rel="stylesheet" href="popup.css"><script type="module" src="popup.js"></script>',
      "popup.css": "body {}",
      "popup.js": 'import { a } from "./a.js";\nimport "./b.js";',
      "a.js": 'export const a = 1;\nexport { b } from "./b.js";',
      "b.js": "export const b = 2;",
      "other.js": "// not the popup's",
    };
    write(fakeExt, files);
    write(shots, { "popup-x.png": "png", "notes.txt": "not a screenshot" });
    assert.deepEqual(popupSources(fakeExt), ["a.js", "b.js", "popup.css", "popup.html", "popup.js"]);
    assert.deepEqual(staleness(fakeExt, shots), [`${path.join(shots, MANIFEST)} is missing`]);

    writeFileSync(path.join(shots, MANIFEST), JSON.stringify(manifest(fakeExt, shots)));
    assert.deepEqual(staleness(fakeExt, shots), []);
    write(fakeExt, { "popup.html": files["popup.html"].replace(/\n/g, "\r\n") });
    assert.deepEqual(staleness(fakeExt, shots), [], "line endings of a checkout do not count");

    write(fakeExt, { "b.js": "export const b = 3;", "popup.css": "body {}\r\n" });
    write(shots, { "popup-y.png": "new" });
    assert.deepEqual(staleness(fakeExt, shots), [
      "popup file b.js changed since the screenshots",
      "popup file popup.css changed since the screenshots",
      "screenshot popup-y.png is new since the screenshots",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function write(dir, files) {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
}
