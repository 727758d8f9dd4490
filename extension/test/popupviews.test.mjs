import assert from "node:assert/strict";
import { test } from "node:test";
import { FIX_NAMES, explainError } from "../errorhelp.js";
import { Debouncer, matchList, pickView, splitAt, syntaxMessage, testerView } from "../locatorview.js";
import { snapshotLines, snapshotSummary } from "../snapshotview.js";
import { agentsView, describeStatus } from "../statusview.js";

test("snapshotLines: depth, text and ref of each line, the ref once (out of the text)", () => {
  const text = [
    "main",
    '  heading "Shop" [level=1]',
    '  button "Buy @2 now" @12',
    '  - link "Home" [url=/] @3',
    '  textbox "Email" @4: a@b.c @5',
    '  button "Say \\"hi\\" @6: x" @7',
    '  "@8"',
    "  text about @9 things",
    "  link @10",
    "",
    "",
  ].join("\n");
  assert.deepEqual(snapshotLines(text), [
    { depth: 0, text: "main", ref: "" },
    { depth: 1, text: 'heading "Shop" [level=1]', ref: "" },
    { depth: 1, text: 'button "Buy @2 now"', ref: "@12" },
    { depth: 1, text: '- link "Home" [url=/]', ref: "@3" },
    { depth: 1, text: 'textbox "Email": a@b.c @5', ref: "@4" },
    { depth: 1, text: 'button "Say \\"hi\\" @6: x"', ref: "@7" },
    { depth: 1, text: '"@8"', ref: "" },
    { depth: 1, text: "text about @9 things", ref: "" },
    { depth: 1, text: "link", ref: "@10" },
  ]);
});

test("snapshotSummary", () => {
  assert.equal(snapshotSummary({ stats: { refs: 1, elements: 9, tookMs: 12.4 } }), "1 ref · 9 elements · 12 ms");
  assert.equal(snapshotSummary({ stats: { refs: 3 }, truncated: { shownLines: 10, totalLines: 40 } }), "3 refs · cut at 10 of 40 lines");
});

test("Debouncer runs only the latest call after the pause", () => {
  const pending = new Map();
  let next = 1;
  const timers = {
    setTimeout: (fn) => {
      pending.set(next, fn);
      return next++;
    },
    clearTimeout: (t) => pending.delete(t),
  };
  const runs = [];
  const d = new Debouncer((v, seq) => runs.push([v, seq]), 150, timers);
  d.call("r");
  d.call("ro");
  const last = d.call("role");
  assert.equal(pending.size, 1);
  for (const fn of pending.values()) fn();
  assert.deepEqual(runs, [["role", last]]);
  assert.equal(d.isLatest(last), true);
  d.call("role=");
  assert.equal(d.isLatest(last), false);
});

test("testerView: counts, syntax errors marked at their offset, other errors in words", () => {
  assert.deepEqual(testerView("  ", null, explainError), { kind: "empty" });
  const one = testerView("#a", { result: { count: 1, matches: [{ role: "button", name: "Go", box: { x: 1 } }] } }, explainError);
  assert.deepEqual([one.kind, one.count, one.text, one.matches], ["count", 1, "1 match: unique.", [{ label: "", text: 'button "Go"', where: "", nth: "" }]]);
  assert.match(testerView("li", { result: { count: 3, matches: [] } }, explainError).text, /^3 matches/);
  assert.equal(testerView("#x", { result: { count: 0, matches: [] } }, explainError).text, "No element matches.");

  const syntax = testerView(
    'role=button[name="x"',
    { error: { code: 1104, name: "syntax_error", message: 'invalid locator "role=button[name=\\"x\\"": missing ] at offset 20 (syntax_error 1104)', data: { offset: 20 } } },
    explainError,
  );
  assert.deepEqual(syntax, { kind: "syntax", text: "missing ]", before: 'role=button[name="x"', at: " ", after: "" });
  const mid = testerView("css=a[", { error: { name: "syntax_error", message: "bad", data: { offset: 5 } } }, explainError);
  assert.deepEqual([mid.before, mid.at, mid.after], ["css=a", "[", ""]);
  const css = testerView("a[", { error: { name: "syntax_error", message: "invalid selector", data: { offset: -1 } } }, explainError);
  assert.deepEqual([css.before, css.at], ["a[", ""]);

  const stopped = testerView("#a", { error: { code: 1140, name: "automation_stopped", message: "automation is stopped" } }, explainError);
  assert.deepEqual([stopped.kind, stopped.text], ["error", explainError({ name: "automation_stopped" })]);
});

test("matchList tells matches apart: the box's number, the nth locator, the position of look-alikes", () => {
  const more = (x) => ({ role: "link", name: "More", box: { x, y: 61.4, width: 40, height: 18 } });
  const list = matchList(' role=link >> visible=true ', [more(36), more(90.6), { role: "link", name: "About", box: { x: 150, y: 61, width: 44, height: 18 } }, { role: "link", name: "More" }]);
  assert.deepEqual(list, [
    { label: "1/4", text: 'link "More"', where: "at 36, 61", nth: "role=link >> visible=true >> nth=0" },
    { label: "2/4", text: 'link "More"', where: "at 91, 61", nth: "role=link >> visible=true >> nth=1" },
    { label: "3/4", text: 'link "About"', where: "", nth: "role=link >> visible=true >> nth=2" },
    { label: "4/4", text: 'link "More" (not rendered)', where: "", nth: "role=link >> visible=true >> nth=3" },
  ]);
  const texts = list.map((m) => `${m.label} ${m.text} ${m.where}`);
  assert.equal(new Set(texts).size, texts.length, "every line differs");
});

test("syntaxMessage keeps the reason", () => {
  assert.equal(syntaxMessage('resolve: invalid locator "role=button[name=\\"Buy\\"": unclosed [ at offset 11 (syntax_error 1104)'), "unclosed [");
  assert.equal(syntaxMessage("invalid selector"), "invalid selector");
});

test("splitAt counts UTF-8 bytes, as the service does", () => {
  assert.deepEqual(splitAt("text=é[x", 7), { before: "text=é", at: "[", after: "x" });
  assert.deepEqual(splitAt("a😀b", 5), { before: "a😀", at: "b", after: "" });
});

test("pickView", () => {
  const v = pickView(
    {
      tab: 7,
      url: "http://127.0.0.1/",
      locator: 'role=button[name="Buy"]',
      ref: "@4",
      role: "button",
      name: "Buy",
      at: 1000,
      candidates: [
        { locator: 'role=button[name="Buy"]', kind: "role", count: 1, unique: true },
        { locator: 'text="Buy"', kind: "text", count: 2, unique: false },
        { locator: "css=#gone", kind: "css", count: 0, unique: false },
      ],
    },
    11_000,
  );
  assert.equal(v.locator, 'role=button[name="Buy"]');
  assert.equal(v.ref, "@4");
  assert.equal(v.element, 'button "Buy"');
  assert.equal(v.where, "tab 7 · http://127.0.0.1/ · 10 s ago");
  assert.deepEqual(
    v.candidates.map((c) => c.note),
    ["unique", "2 matches", "no match"],
  );
  assert.deepEqual(pickView({ cancelled: true }), { cancelled: true });
  assert.equal(pickView(null), null);
});

test("explainError gives a fix for each failure state, never the raw code alone", () => {
  for (const name of FIX_NAMES) {
    const text = explainError({ name, code: 1 });
    assert.ok(text.length > 20 && !text.startsWith(name), `${name}: ${text}`);
  }
  assert.match(explainError({ name: "service_down" }), /egohost serve/);
  assert.equal(explainError({ name: "weird", message: "something odd" }), "something odd");
});

test("describeStatus: the Stop-all switch; agentsView", () => {
  assert.equal(describeStatus({ native: {}, automationStopped: true }).automation.state, "stopped");
  assert.equal(describeStatus({ native: {} }).automation.state, "on");
  assert.equal(agentsView(null), null);
  const a = agentsView({ endpoint: "ws://127.0.0.1:1/rpc", tokenFile: "/home/u/.local/state/egohost/token", browser: "b1" });
  assert.deepEqual([a.endpoint, a.tokenFile, a.browser], ["ws://127.0.0.1:1/rpc", "/home/u/.local/state/egohost/token", "b1"]);
});
