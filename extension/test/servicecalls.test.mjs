import assert from "node:assert/strict";
import { test } from "node:test";
import { Notices, ServiceCalls } from "../servicecalls.js";

// fakeTimers runs timeouts only when fire() is called.
function fakeTimers() {
  const timers = new Map();
  let next = 1;
  return {
    setTimeout: (fn) => {
      timers.set(next, fn);
      return next++;
    },
    clearTimeout: (t) => timers.delete(t),
    fire: () => {
      for (const [t, fn] of [...timers]) {
        timers.delete(t);
        fn();
      }
    },
    get size() {
      return timers.size;
    },
  };
}

function setup({ connected = true } = {}) {
  const sent = [];
  const timers = fakeTimers();
  const calls = new ServiceCalls({ post: (m) => sent.push(m), connected: () => connected, timers, timeoutMs: 5000 });
  return { sent, timers, calls };
}

test("a call is sent numbered and settled by its reply", async () => {
  const { sent, timers, calls } = setup();
  const a = calls.call("popup.status");
  const b = calls.call("snapshot", { interactive: true });
  assert.deepEqual(sent, [
    { call: 1, method: "popup.status" },
    { call: 2, method: "snapshot", params: { interactive: true } },
  ]);
  calls.onReply({ event: "callReply", call: 2, error: { code: 1001, message: "no tab", data: { name: "tab_not_found" } } });
  calls.onReply({ event: "callReply", call: 1, result: { browser: "b1" } });
  assert.deepEqual(await a, { result: { browser: "b1" } });
  assert.deepEqual(await b, { error: { code: 1001, name: "tab_not_found", message: "no tab", data: { name: "tab_not_found" } } });
  assert.equal(calls.pending, 0);
  assert.equal(timers.size, 0, "settled calls leave no timer");
});

test("late, unknown and malformed replies are dropped", async () => {
  const { calls } = setup();
  const a = calls.call("popup.status");
  calls.onReply({ event: "callReply", call: 99, result: 1 });
  calls.onReply({ event: "callReply", call: "1", result: 1 });
  calls.onReply(null);
  assert.equal(calls.pending, 1);
  calls.onReply({ event: "callReply", call: 1, result: null });
  assert.deepEqual(await a, { result: null });
});

test("a call without an answer times out", async () => {
  const { timers, calls } = setup();
  const a = calls.call("popup.status");
  timers.fire();
  const got = await a;
  assert.equal(got.error.name, "timeout");
  assert.equal(calls.pending, 0);
  calls.onReply({ event: "callReply", call: 1, result: {} }); // late: dropped, no throw
});

test("calls fail at once when the service is not connected", async () => {
  const { sent, calls } = setup({ connected: false });
  const got = await calls.call("popup.status");
  assert.equal(got.error.name, "service_down");
  assert.equal(sent.length, 0);
});

test("calls fail when the port throws, and when the link goes", async () => {
  const timers = fakeTimers();
  const throwing = new ServiceCalls({ post: () => { throw new Error("port closed"); }, timers });
  const got = await throwing.call("popup.status");
  assert.equal(got.error.name, "service_down");
  assert.match(got.error.message, /port closed/);

  const { calls } = setup();
  const a = calls.call("snapshot");
  calls.failAll("the native host closed");
  const lost = await a;
  assert.equal(lost.error.name, "service_down");
  assert.match(lost.error.message, /^snapshot: the native host closed/);
});

test("a call needs a method", async () => {
  const { sent, calls } = setup();
  assert.equal((await calls.call("")).error.name, "invalid_request");
  assert.equal((await calls.call(undefined)).error.name, "invalid_request");
  assert.equal(sent.length, 0);
});

test("notices are kept per topic, set the badge and tell open pages", async () => {
  const stored = [];
  const badges = [];
  const told = [];
  const notices = new Notices({
    storage: { set: async (v) => stored.push(structuredClone(v)) },
    action: { setBadgeText: async ({ text }) => badges.push(text) },
    runtime: { sendMessage: async (m) => told.push(m) },
  });
  await notices.onNotice({ event: "notice", topic: "pairing", params: { badge: "1", pending: ["bot"] } });
  await notices.onNotice({ event: "notice", topic: "other", params: { x: 1 } });
  await notices.onNotice({ event: "notice", topic: "pairing", params: { pending: [] } });
  await notices.onNotice({ event: "notice" }); // no topic: ignored
  assert.deepEqual(badges, ["1", "1", ""]);
  assert.deepEqual(Object.keys(stored.at(-1).notices).sort(), ["other", "pairing"]);
  assert.deepEqual(stored.at(-1).notices.pairing.params, { pending: [] });
  assert.deepEqual(told.map((m) => m.topic), ["pairing", "other", "pairing"]);
});

test("a notice with no open page to tell does not throw", async () => {
  const notices = new Notices({ runtime: { sendMessage: () => Promise.reject(new Error("no receiver")) } });
  await notices.onNotice({ event: "notice", topic: "t", params: {} });
});
