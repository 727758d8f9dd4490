import assert from "node:assert/strict";
import { test } from "node:test";
import { pathNodes, pathParts } from "../pathview.js";
import { describeStatus, formatSeconds, nativeHint } from "../statusview.js";

test("nativeHint names the fix for each of Chrome's native-messaging errors", () => {
  assert.match(nativeHint("Specified native messaging host not found."), /egohost install/);
  assert.match(nativeHint("Access to the specified native messaging host is forbidden."), /extension ID/);
  assert.match(nativeHint("Native host has exited."), /crashed or is not executable/);
  assert.match(nativeHint("Error when communicating with the native messaging host."), /1 MiB/);
  assert.equal(nativeHint("something new"), "");
  assert.equal(nativeHint(undefined), "");
});

test("describeStatus survives a worker with no status yet", () => {
  for (const s of [null, undefined, "junk", {}]) {
    const v = describeStatus(s, 0);
    assert.ok(v.native.dot && v.native.state, JSON.stringify(s));
    assert.ok(Array.isArray(v.attached));
  }
  assert.equal(describeStatus(null).native.dot, "grey");
});

test("describeStatus: host not found, with error verbatim, hint and retry", () => {
  const v = describeStatus(
    { native: { connected: false, lastError: "Specified native messaging host not found.", nextRetryAt: 3500, attempts: 2 } },
    1000,
  );
  assert.deepEqual(v.native.dot, "red");
  assert.equal(v.native.error, "Specified native messaging host not found.");
  assert.match(v.native.hint, /egohost install/);
  assert.equal(v.native.retry, "Retrying in 2.5 s (attempt 3).");
  assert.equal(v.relay.dot, "grey");
});

test("describeStatus: service down, then connected with welcome", () => {
  const down = describeStatus(
    { native: { connected: true, hostSeen: true }, relay: { state: "service_down", error: "dial unix: connection refused", retryMs: 800, at: 1000 } },
    1200,
  );
  assert.deepEqual([down.native.dot, down.relay.dot, down.relay.state], ["green", "red", "not running (service_down)"]);
  assert.match(down.relay.hint, /egohost serve/);
  assert.equal(down.relay.error, "dial unix: connection refused");
  assert.equal(down.relay.detail, "The relay retries in 0.6 s.");

  const up = describeStatus({
    native: { connected: true, hostSeen: true },
    relay: { state: "connected", socket: "/run/user/0/egohost.sock" },
    welcome: { browserId: "b1", serviceVersion: "0.1.0", servicePid: 4242 },
    attached: [{ id: 1, title: "A", url: "https://a.example/" }],
  });
  assert.deepEqual([up.relay.dot, up.relay.state, up.relay.socket, up.relay.detail], ["green", "connected", "/run/user/0/egohost.sock", undefined]);
  assert.deepEqual(up.welcome, { browser: "b1", version: "0.1.0", pid: "4242" });
  assert.equal(up.attached.length, 1);

  const starting = describeStatus({ native: { connected: true, hostSeen: false } });
  assert.deepEqual([starting.native.dot, starting.relay.dot], ["amber", "amber"]);
});

test("formatSeconds", () => {
  assert.equal(formatSeconds(500), "0.5 s");
  assert.equal(formatSeconds(-3), "0.0 s");
  assert.equal(formatSeconds(30000), "30 s");
});

test("pathParts: a path or URL breaks only after a separator, never inside a name", () => {
  assert.deepEqual(pathParts("/tmp/TestPopup4235973676/001/relay.sock"), ["/", "tmp/", "TestPopup4235973676/", "001/", "relay.sock"]);
  assert.deepEqual(pathParts("ws://127.0.0.1:41787/rpc?a=b&c#d"), ["ws:/", "/", "127.0.0.1:41787/", "rpc?", "a=", "b&", "c#", "d"]);
  assert.deepEqual(pathParts("C:\\Users\\ada\\token"), ["C:\\", "Users\\", "ada\\", "token"]);
  assert.deepEqual(pathParts(""), []);
  assert.deepEqual(pathParts(undefined), []);
  const doc = { createElement: (tag) => ({ tag }), createTextNode: (text) => ({ text }) };
  assert.deepEqual(pathNodes(doc, "/a/b"), [{ text: "/" }, { tag: "wbr" }, { text: "a/" }, { tag: "wbr" }, { text: "b" }]);
});
