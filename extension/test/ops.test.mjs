import assert from "node:assert/strict";
import { test } from "node:test";
import { OPS as dispatchOps } from "../dispatch.js";
import { OPS } from "../opset.js";
import { buildHandlers } from "../ops.js";

// opset.js is the one declaration of the ops: the dispatcher validates with it and ops.js
// handles exactly its ops (browserlink's Go test holds the service and PROTOCOL.md to it).
test("ops.js handles exactly the ops of opset.js", () => {
  const handlers = buildHandlers({ relay: {}, tabOps: {}, groupOps: {} });
  assert.deepEqual(Object.keys(handlers).sort(), Object.keys(OPS).sort());
  for (const [op, h] of Object.entries(handlers)) assert.equal(typeof h, "function", op);
  assert.equal(dispatchOps, OPS);
});

test("opset.js declares every field with a known kind", () => {
  const kinds = new Set(["tabId", "tabIds", "string", "bool", "object", "color", "names", "any"]);
  for (const [op, fields] of Object.entries(OPS)) {
    for (const [field, kind] of Object.entries(fields)) {
      assert.ok(kinds.has(kind.replace(/\?$/, "")), `${op}.${field}: unknown kind ${kind}`);
    }
  }
});
