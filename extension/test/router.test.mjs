import assert from "node:assert/strict";
import { test } from "node:test";
import { Dispatcher } from "../dispatch.js";
import { Router } from "../router.js";
import { FakePort } from "./fakes.mjs";

function setup() {
  const port = new FakePort();
  const seen = [];
  const dispatcher = new Dispatcher({
    handlers: { echo: async (req) => ({ data: req.data }), ping: async () => ({ pong: true }) },
    post: (m) => port.postMessage(m),
    log: { warn() {} },
  });
  const router = new Router({
    dispatcher,
    onRelay: (m) => seen.push(["relay", m.state]),
    onWelcome: (m) => seen.push(["welcome", m.browserId]),
    onEvent: (m) => seen.push(["event", m.event]),
    onProtocolError: (e) => seen.push(["protocol", e]),
  });
  return { port, seen, router };
}

function chunks(message, piece, chunk = "c9") {
  const bytes = Buffer.from(JSON.stringify(message));
  const count = Math.ceil(bytes.length / piece);
  return Array.from({ length: count }, (_, i) => ({ chunk, index: i, count, data: bytes.subarray(i * piece, (i + 1) * piece).toString("base64") }));
}

test("events go to their handlers, requests to the dispatcher", async () => {
  const { port, seen, router } = setup();
  await router.route({ event: "relay", state: "connected", socket: "/run/egohost.sock" });
  await router.route({ event: "welcome", browserId: "b1", serviceVersion: "0.1.0", servicePid: 42 });
  await router.route({ event: "something.new" });
  await router.route({ id: 1, op: "ping" });
  assert.deepEqual(seen, [
    ["relay", "connected"],
    ["welcome", "b1"],
    ["event", "something.new"],
  ]);
  assert.deepEqual(port.sent, [{ id: 1, result: { pong: true } }]);
});

test("a chunked request is reassembled and answered", async () => {
  const { port, router } = setup();
  const data = "ü😀".repeat(1000);
  for (const f of chunks({ id: 5, op: "echo", data }, 333)) await router.route(f);
  assert.deepEqual(port.sent, [{ id: 5, result: { data } }]);
});

test("a broken chunked request is answered with bad_request when its id is known", async () => {
  const { port, seen, router } = setup();
  const frames = chunks({ id: 6, op: "echo", data: "z".repeat(200) }, 50);
  await router.route(frames[0]);
  await router.route(frames[2]);
  assert.equal(port.sent.length, 1);
  assert.equal(port.sent[0].id, 6);
  assert.equal(port.sent[0].error.code, "bad_request");
  assert.match(port.sent[0].error.message, /out of order/);
  assert.equal(seen[0][0], "protocol");
  // The link keeps working afterwards.
  await router.route({ id: 7, op: "ping" });
  assert.deepEqual(port.sent[1], { id: 7, result: { pong: true } });
});

test("reset drops a partial chunked message", async () => {
  const { port, seen, router } = setup();
  const frames = chunks({ id: 8, op: "echo", data: "q".repeat(100) }, 40);
  await router.route(frames[0]);
  router.reset();
  await router.route(frames[1]);
  assert.equal(seen[0][0], "protocol");
  assert.deepEqual(port.sent, []);
});
