import assert from "node:assert/strict";
import { test } from "node:test";
import { Backoff } from "../backoff.js";
import { NativeLink } from "../native.js";
import { FakePort } from "./fakes.mjs";

test("backoff: 500 ms doubling, capped at 30 s, reset starts over", () => {
  const b = new Backoff();
  const got = Array.from({ length: 9 }, () => b.next());
  assert.deepEqual(got, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(b.attempts, 9);
  b.reset();
  assert.equal(b.attempts, 0);
  assert.deepEqual([b.next(), b.next()], [500, 1000]);
});

// A fake chrome.runtime: connectNative hands out FakePorts; disconnect(port, error) plays Chrome
// closing the port with lastError set only during the onDisconnect listeners, as Chrome does.
function fakeRuntime() {
  const rt = {
    ports: [],
    lastError: undefined,
    connectNative(name) {
      rt.name = name;
      const p = new FakePort();
      rt.ports.push(p);
      return p;
    },
    disconnect(port, error) {
      rt.lastError = error ? { message: error } : undefined;
      port.onDisconnect.fire(port);
      rt.lastError = undefined;
    },
  };
  return rt;
}

// Manual timers: the test decides when a scheduled reconnect runs.
function fakeTimers() {
  const t = { pending: [], delays: [] };
  t.setTimeout = (fn, ms) => {
    const h = { fn, ms };
    t.pending.push(h);
    t.delays.push(ms);
    return h;
  };
  t.clearTimeout = (h) => {
    t.pending = t.pending.filter((x) => x !== h);
  };
  t.runAll = () => {
    const due = t.pending;
    t.pending = [];
    for (const h of due) h.fn();
  };
  return t;
}

function setup() {
  const runtime = fakeRuntime();
  const timers = fakeTimers();
  const log = [];
  const link = new NativeLink({
    runtime,
    hostName: "com.egohost.host",
    timers,
    now: () => 1000,
    onOpen: () => log.push("open"),
    onMessage: (m) => log.push(["msg", m]),
    onClose: (e) => log.push(["close", e]),
  });
  return { runtime, timers, log, link };
}

test("link reconnects on the backoff schedule and records Chrome's error verbatim", () => {
  const { runtime, timers, link } = setup();
  link.connect();
  assert.equal(runtime.name, "com.egohost.host");
  for (let i = 0; i < 8; i++) {
    runtime.disconnect(runtime.ports.at(-1), "Specified native messaging host not found.");
    timers.runAll();
  }
  assert.deepEqual(timers.delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.equal(link.lastError, "Specified native messaging host not found.");
  assert.equal(runtime.ports.length, 9);
});

test("a relay `connected` (healthy) resets the backoff", () => {
  const { runtime, timers, link } = setup();
  link.connect();
  for (let i = 0; i < 4; i++) {
    runtime.disconnect(runtime.ports.at(-1), "Native host has exited.");
    timers.runAll();
  }
  link.healthy();
  runtime.disconnect(runtime.ports.at(-1), "Native host has exited.");
  assert.deepEqual(timers.delays, [500, 1000, 2000, 4000, 500]);
});

test("status: open port, host seen after its first message, retry time when closed", () => {
  const { runtime, link, log } = setup();
  link.connect();
  assert.deepEqual(link.status().connected, true);
  assert.deepEqual(link.status().hostSeen, false);
  runtime.ports[0].onMessage.fire({ event: "relay", state: "connected" });
  assert.equal(link.status().hostSeen, true);
  runtime.disconnect(runtime.ports[0], "Native host has exited.");
  const s = link.status();
  assert.equal(s.connected, false);
  assert.equal(s.lastError, "Native host has exited.");
  assert.equal(s.nextRetryAt, 1500);
  assert.deepEqual(log, ["open", ["msg", { event: "relay", state: "connected" }], ["close", "Native host has exited."]]);
});

test("post throws without a port; Chrome's synchronous throw passes through", () => {
  const { runtime, link } = setup();
  assert.throws(() => link.post({ event: "hello" }), /not connected/);
  link.connect();
  link.post({ event: "hello" });
  assert.deepEqual(runtime.ports[0].sent, [{ event: "hello" }]);
  runtime.ports[0].postImpl = () => {
    throw new Error("Message exceeded maximum allowed size of 64MiB.");
  };
  assert.throws(() => link.post({ id: 1, result: {} }), /maximum allowed size/);
});

test("connectNative throwing counts as a failed attempt", () => {
  const { runtime, timers, link } = setup();
  runtime.connectNative = () => {
    throw new Error("Access to the specified native messaging host is forbidden.");
  };
  link.connect();
  assert.equal(link.connected, false);
  assert.equal(link.lastError, "Access to the specified native messaging host is forbidden.");
  assert.deepEqual(timers.delays, [500]);
});

test("reconnectNow drops the port, cancels the pending retry and connects at once", () => {
  const { runtime, timers, link } = setup();
  link.connect();
  runtime.disconnect(runtime.ports[0], "Native host has exited.");
  timers.runAll();
  runtime.disconnect(runtime.ports[1], "Native host has exited.");
  assert.equal(timers.pending.length, 1);
  link.reconnectNow();
  assert.equal(timers.pending.length, 0);
  assert.equal(runtime.ports.length, 3);
  assert.equal(link.connected, true);
  // Reconnecting an open port closes the old one and opens a fresh one.
  link.reconnectNow();
  assert.equal(runtime.ports[2].disconnected, true);
  assert.equal(runtime.ports.length, 4);
  // A late onDisconnect from the old port changes nothing.
  runtime.disconnect(runtime.ports[2], "Native host has exited.");
  assert.equal(link.connected, true);
  assert.equal(timers.pending.length, 0);
});

test("wake connects a closed link at once, and does nothing while a port is open or a retry is scheduled", () => {
  const { runtime, timers, link } = setup();
  link.wake(); // a worker Chrome just started: no port, no retry
  assert.equal(runtime.ports.length, 1);
  link.wake();
  assert.equal(runtime.ports.length, 1, "a port is open");
  runtime.disconnect(runtime.ports[0], "Native host has exited.");
  link.wake();
  link.wake();
  assert.equal(runtime.ports.length, 1, "the backoff's retry is pending: the alarm must not defeat it");
  timers.runAll();
  assert.equal(runtime.ports.length, 2);
});
