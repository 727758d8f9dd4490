// The files the popup is made of and the manifest of docs/img's screenshots (issue 26): which
// popup files (by SHA-256) the screenshots were taken from, and the screenshots' own hashes.
// extension/test/screenshots.test.mjs fails when they no longer match: the popup changed and the
// screenshots did not (run scripts/popup-screenshots.sh).
//
// The trace viewer's picture (docs/img/trace.png) has its own manifest the same way:
// trace-screenshot.json, the viewer's files (internal/server/trace/html.go) and the image
// (scripts/trace-screenshot.sh).
//
//   node scripts/popup-sources.mjs write docs/img          writes docs/img/popup-screenshots.json
//   node scripts/popup-sources.mjs write-trace docs/img    writes docs/img/trace-screenshot.json

import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MANIFEST = "popup-screenshots.json";

/** IMAGE tells the images the screenshot run writes (the popup's panels and a page with its boxes). */
export const IMAGE = /^(popup-.*|page-highlight)\.png$/;

const read = (file) => readFileSync(file, "utf8").replace(/\r\n/g, "\n"); // the same hash on any checkout

/**
 * popupSources lists the files popup.html loads, its stylesheets and scripts and every module
 * they import, relative to extDir, sorted.
 */
export function popupSources(extDir) {
  const seen = new Set();
  const visit = (name) => {
    const rel = path.posix.normalize(name);
    if (seen.has(rel)) return;
    seen.add(rel);
    const text = read(path.join(extDir, rel));
    const refs = rel.endsWith(".html")
      ? [...text.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1])
      : rel.endsWith(".js")
        ? [...text.matchAll(/^\s*(?:import|export)\b[^"'`;]*?(?:from\s*)?["'](\.{1,2}\/[^"']+)["']/gm)].map((m) => m[1])
        : [];
    for (const ref of refs) {
      if (/^[a-z]+:/i.test(ref)) continue; // not a file of the extension
      visit(path.posix.join(path.posix.dirname(rel), ref));
    }
  };
  visit("popup.html");
  return [...seen].sort();
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** sourceHashes is {file: sha256} of the popup's files. */
export function sourceHashes(extDir) {
  return Object.fromEntries(popupSources(extDir).map((f) => [f, sha256(read(path.join(extDir, f)))]));
}

/** imageHashes is {file: sha256} of the screenshots in imgDir (those image matches). */
export function imageHashes(imgDir, image = IMAGE) {
  const names = existsSync(imgDir) ? readdirSync(imgDir).filter((f) => image.test(f)).sort() : [];
  return Object.fromEntries(names.map((f) => [f, sha256(readFileSync(path.join(imgDir, f)))]));
}

/** manifest is what docs/img/popup-screenshots.json records. */
export function manifest(extDir, imgDir) {
  return {
    note: "Written by scripts/popup-screenshots.sh: the popup files the screenshots were taken from. Do not edit.",
    sources: sourceHashes(extDir),
    images: imageHashes(imgDir),
  };
}

export const TRACE_MANIFEST = "trace-screenshot.json";

/** TRACE_IMAGE tells the trace viewer's picture. */
export const TRACE_IMAGE = /^trace\.png$/;

/** TRACE_SOURCES are the trace viewer's files, relative to the repository's root. */
export const TRACE_SOURCES = ["internal/server/trace/html.go"];

/** traceManifest is what docs/img/trace-screenshot.json records. */
export function traceManifest(rootDir, imgDir) {
  return {
    note: "Written by scripts/trace-screenshot.sh: the viewer files the picture was taken from. Do not edit.",
    sources: Object.fromEntries(TRACE_SOURCES.map((f) => [f, sha256(read(path.join(rootDir, f)))])),
    images: imageHashes(imgDir, TRACE_IMAGE),
  };
}

/**
 * staleness says what differs between the manifest in imgDir and the popup's files and the
 * images there now: [] when the screenshots are current.
 */
export function staleness(extDir, imgDir) {
  return compare(path.join(imgDir, MANIFEST), manifest(extDir, imgDir), "popup file");
}

/** traceStaleness is staleness for the trace viewer's picture. */
export function traceStaleness(rootDir, imgDir) {
  return compare(path.join(imgDir, TRACE_MANIFEST), traceManifest(rootDir, imgDir), "viewer file");
}

/** compare says what differs between the manifest in file and now. */
function compare(file, now, source) {
  if (!existsSync(file)) return [`${file} is missing`];
  const recorded = JSON.parse(readFileSync(file, "utf8"));
  const out = [];
  for (const [kind, what] of [
    ["sources", source],
    ["images", "screenshot"],
  ]) {
    const was = recorded[kind] ?? {};
    const is = now[kind];
    for (const f of Object.keys(is)) {
      if (!(f in was)) out.push(`${what} ${f} is new since the screenshots`);
      else if (was[f] !== is[f]) out.push(`${what} ${f} changed since the screenshots`);
    }
    for (const f of Object.keys(was)) if (!(f in is)) out.push(`${what} ${f} is gone since the screenshots`);
  }
  return out;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [cmd, dir] = process.argv.slice(2);
  if ((cmd !== "write" && cmd !== "write-trace") || !dir) {
    console.error("usage: node scripts/popup-sources.mjs write|write-trace docs/img");
    process.exit(2);
  }
  const [name, m] =
    cmd === "write"
      ? [MANIFEST, manifest(path.join(root, "extension"), path.resolve(dir))]
      : [TRACE_MANIFEST, traceManifest(root, path.resolve(dir))];
  writeFileSync(path.join(dir, name), `${JSON.stringify(m, null, 2)}\n`);
  console.log(`${path.join(dir, name)}: ${Object.keys(m.sources).length} source files, ${Object.keys(m.images).length} images`);
}
