import assert from "node:assert/strict";
import { test } from "node:test";
import { Dispatcher, echoResult, safePost, validateRequest } from "../dispatch.js";
import { WireError } from "../errors.js";
import { FakePort } from "./fakes.mjs";

const quiet = { warn() {} };

function setup(handlers = {}) {
  const port = new FakePort();
  const d = new Dispatcher({ handlers: { ping: async () => ({ pong: true }), ...handlers }, post: (m) => port.postMessage(m), log: quiet });
  return { port, d };
}

test("validateRequest: bad_request and unknown_op", () => {
  const cases = [
    ["not an object", "hello", "bad_request", /JSON object/],
    ["null", null, "bad_request", /JSON object/],
    ["array", [1], "bad_request", /JSON object/],
    ["no id", { op: "ping" }, "bad_request", /numeric `id`/],
    ["string id", { id: "7", op: "ping" }, "bad_request", /numeric `id`/],
    ["no op", { id: 1 }, "bad_request", /string `op`/],
    ["numeric op", { id: 1, op: 3 }, "bad_request", /string `op`/],
    ["unknown op", { id: 1, op: "fly" }, "unknown_op", /"fly"/],
    ["inherited name is not an op", { id: 1, op: "toString" }, "unknown_op", /toString/],
    ["missing tabId", { id: 1, op: "cdp", method: "Page.enable" }, "bad_request", /missing field `tabId`/],
    ["string tabId", { id: 1, op: "attach", tabId: "5" }, "bad_request", /`tabId` must be a tab id/],
    ["negative tabId", { id: 1, op: "attach", tabId: -1 }, "bad_request", /`tabId`/],
    ["fractional tabId", { id: 1, op: "attach", tabId: 1.5 }, "bad_request", /`tabId`/],
    ["params array", { id: 1, op: "cdp", tabId: 1, method: "X.y", params: [] }, "bad_request", /`params` must be a JSON object/],
    ["method number", { id: 1, op: "cdp", tabId: 1, method: 5 }, "bad_request", /`method` must be a string/],
    ["sessionId number", { id: 1, op: "cdp", tabId: 1, method: "X.y", sessionId: 1 }, "bad_request", /`sessionId`/],
    ["active string", { id: 1, op: "tabs.open", url: "about:blank", active: "yes" }, "bad_request", /`active` must be a boolean/],
    ["quiet methods a string", { id: 1, op: "events.quiet", methods: "Network.dataReceived", lifecycle: [] }, "bad_request", /`methods` must be an array/],
    ["quiet lifecycle missing", { id: 1, op: "events.quiet", methods: [] }, "bad_request", /missing field `lifecycle`/],
    ["quiet method a number", { id: 1, op: "events.quiet", methods: [7], lifecycle: [] }, "bad_request", /`methods`/],
    ["quiet method too long", { id: 1, op: "events.quiet", methods: ["N." + "x".repeat(99)], lifecycle: [] }, "bad_request", /`methods`/],
    ["quiet too many", { id: 1, op: "events.quiet", methods: Array.from({ length: 257 }, (_, i) => `A.b${i}`), lifecycle: [] }, "bad_request", /at most 256/],
  ];
  for (const [name, msg, code, pattern] of cases) {
    const got = validateRequest(msg);
    assert.ok(got, `${name}: want an error`);
    assert.equal(got.code, code, name);
    assert.match(got.message, pattern, name);
  }
});

test("validateRequest accepts well-formed requests", () => {
  for (const msg of [
    { id: 1, op: "ping" },
    { id: 2, op: "cdp", tabId: 3, method: "Runtime.evaluate", params: { expression: "1" } },
    { id: 3, op: "cdp", tabId: 3, method: "Page.enable", sessionId: "S1" },
    { id: 4, op: "tabs.open", url: "https://example.com/" },
    { id: 5, op: "tabs.open", url: "about:blank", active: false },
    { id: 6, op: "echo", data: [1, "two"] },
    { id: 7, op: "tabs.list" },
    { id: 8, op: "events.quiet", methods: [], lifecycle: [] },
    { id: 9, op: "events.quiet", methods: ["Network.dataReceived"], lifecycle: ["firstPaint"] },
  ]) {
    assert.equal(validateRequest(msg), null, JSON.stringify(msg));
  }
});

test("bad requests are answered, with the id when there is one", async () => {
  const { port, d } = setup();
  await d.handle({ op: "ping" });
  await d.handle({ id: 9, op: "nope" });
  await d.handle({ id: "x", op: 1 });
  assert.deepEqual(
    port.sent.map((m) => [m.id, m.error?.code]),
    [
      [null, "bad_request"],
      [9, "unknown_op"],
      ["x", "bad_request"],
    ],
  );
});

test("every request gets exactly one reply: result, WireError, plain error, sync throw", async () => {
  const { port, d } = setup({
    echo: async (req) => echoResult(req.data),
    attach: async () => {
      throw new WireError("no_tab", "no tab with id 5");
    },
    detach: async () => {
      throw new Error("boom");
    },
    "tabs.list": () => {
      throw new TypeError("sync boom");
    },
    "tabs.close": async () => undefined,
  });
  await Promise.all([
    d.handle({ id: 1, op: "ping" }),
    d.handle({ id: 2, op: "echo", data: "héllo😀" }),
    d.handle({ id: 3, op: "attach", tabId: 5 }),
    d.handle({ id: 4, op: "detach", tabId: 5 }),
    d.handle({ id: 5, op: "tabs.list" }),
    d.handle({ id: 6, op: "tabs.close", tabId: 5 }),
  ]);
  const byId = new Map();
  for (const m of port.sent) {
    assert.ok(!byId.has(m.id), `second reply for id ${m.id}`);
    byId.set(m.id, m);
  }
  assert.equal(byId.size, 6);
  assert.deepEqual(byId.get(1).result, { pong: true });
  assert.deepEqual(byId.get(2).result, { data: "héllo😀", length: 6 });
  assert.deepEqual(byId.get(3).error, { code: "no_tab", message: "no tab with id 5" });
  assert.deepEqual(byId.get(4).error, { code: "internal", message: "boom" });
  assert.deepEqual(byId.get(5).error, { code: "internal", message: "sync boom" });
  assert.deepEqual(byId.get(6).result, {});
});

test("an op in the table without a handler is unknown_op, not a crash", async () => {
  const { port, d } = setup();
  await d.handle({ id: 1, op: "tabs.list" });
  assert.equal(port.sent[0].error.code, "unknown_op");
});

test("a reply Chrome refuses as too big becomes a too_large error", async () => {
  const { port, d } = setup({ echo: async (req) => echoResult(req.data) });
  port.postImpl = (msg) => {
    if (msg.result) throw new Error("Message exceeded maximum allowed size of 64MiB.");
    port.sent.push(msg);
  };
  await d.handle({ id: 11, op: "echo", data: "huge" });
  assert.equal(port.sent.length, 1);
  assert.equal(port.sent[0].id, 11);
  assert.equal(port.sent[0].error.code, "too_large");
  assert.match(port.sent[0].error.message, /exceeded maximum allowed size/);
});

test("a reply that fails to post for another reason becomes internal", async () => {
  const { port, d } = setup();
  port.postImpl = (msg) => {
    if (msg.result) throw new Error("Could not serialize message.");
    port.sent.push(msg);
  };
  await d.handle({ id: 12, op: "ping" });
  assert.deepEqual(port.sent.map((m) => m.error?.code), ["internal"]);
});

test("safePost never throws, even when the port is gone", () => {
  const warnings = [];
  const log = { warn: (m) => warnings.push(m) };
  const dead = () => {
    throw new Error("Attempting to use a disconnected port object");
  };
  assert.equal(safePost(dead, { id: 1, result: {} }, log), false);
  assert.equal(safePost(dead, { event: "cdp" }, log), false);
  assert.equal(warnings.length, 2);
  assert.equal(safePost(() => {}, { event: "cdp" }, log), true);
});

test("echoResult counts code points and omits length for non-strings", () => {
  assert.deepEqual(echoResult("a😀é"), { data: "a😀é", length: 3 });
  assert.deepEqual(echoResult(""), { data: "", length: 0 });
  assert.deepEqual(echoResult({ a: 1 }), { data: { a: 1 } });
  assert.deepEqual(echoResult(undefined), { data: undefined });
});
