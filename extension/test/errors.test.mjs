import assert from "node:assert/strict";
import { test } from "node:test";
import { WireError, classifyChromeError, toWireError } from "../errors.js";

// The texts are Chromium 156's own, captured from chrome.debugger and chrome.tabs calls.
test("classifyChromeError reads Chrome's messages", () => {
  const cases = [
    [`{"code":-32601,"message":"'Foo.bar' wasn't found"}`, { kind: "cdp", cdpCode: -32601, message: "'Foo.bar' wasn't found" }],
    [
      `{"code":-32602,"data":"Failed to deserialize params.expression - BINDINGS: string value expected at position 19","message":"Invalid parameters"}`,
      { kind: "cdp", cdpCode: -32602, message: "Invalid parameters: Failed to deserialize params.expression - BINDINGS: string value expected at position 19" },
    ],
    [`{"code":-32001,"message":"Session with given id not found."}`, { kind: "cdp", cdpCode: -32001, message: "Session with given id not found." }],
    [`{"message":"no code"}`, { kind: "cdp", cdpCode: undefined, message: "no code" }],
    ["Another debugger is already attached to the tab with id: 1356742765.", { kind: "already_attached" }],
    ["Debugger is not attached to the tab with id: 1356742765.", { kind: "not_attached", refused: true }],
    ["Detached while handling command.", { kind: "not_attached" }],
    ["No tab with given id 99999.", { kind: "no_tab" }],
    ["No tab with id: 99999.", { kind: "no_tab" }],
    ["Message exceeded maximum allowed size of 64MiB.", { kind: "too_large" }],
    ["Cannot access a chrome:// URL", { kind: "other" }],
    ["{not json", { kind: "other" }],
    ["", { kind: "other" }],
    [undefined, { kind: "other" }],
  ];
  for (const [text, want] of cases) assert.deepEqual(classifyChromeError(text), want, String(text));
});

test("toWireError keeps WireError fields and turns anything else into internal", () => {
  assert.deepEqual(toWireError(new WireError("detached", "gone", { reason: "target_closed" })), {
    code: "detached",
    message: "gone",
    reason: "target_closed",
  });
  assert.deepEqual(toWireError(new Error("x")), { code: "internal", message: "x" });
  assert.deepEqual(toWireError("plain"), { code: "internal", message: "plain" });
  assert.deepEqual(toWireError(undefined), { code: "internal", message: "unknown error" });
});
