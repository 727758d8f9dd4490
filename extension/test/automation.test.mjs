import assert from "node:assert/strict";
import { test } from "node:test";
import { AutomationSwitch, REASON, STORAGE_KEY } from "../automation.js";
import { DebuggerRelay } from "../debugger.js";
import { FakeDebugger, collector, rejection } from "./fakes.mjs";

class FakeStorage {
  data = {};
  async get(key) {
    return key in this.data ? { [key]: this.data[key] } : {};
  }
  async set(items) {
    Object.assign(this.data, items);
  }
}

function setup(storage = new FakeStorage()) {
  const dbg = new FakeDebugger();
  const { events, emit } = collector();
  const sw = new AutomationSwitch({ storage });
  const relay = new DebuggerRelay({ dbg, emit, guard: () => sw.refusal() });
  relay.install();
  return { dbg, events, relay, sw, storage };
}

test("stopping detaches every tab and refuses the next command's attach", async () => {
  const { dbg, events, relay, sw } = setup();
  await relay.attach(1);
  await relay.send(2, "Runtime.enable");
  await sw.set(true);
  await relay.detachAll(REASON);
  assert.deepEqual(relay.attachedTabIds(), []);
  assert.deepEqual(
    events.filter((e) => e.event === "detached").map((e) => [e.tabId, e.reason]),
    [
      [1, REASON],
      [2, REASON],
    ],
  );
  const attaches = dbg.count("attach");
  await assert.rejects(relay.send(1, "Runtime.evaluate", { expression: "1" }), { code: "automation_stopped" });
  await assert.rejects(relay.attach(3), { code: "automation_stopped" });
  assert.equal(dbg.count("attach"), attaches, "no chrome.debugger.attach while stopped");
  await sw.set(false);
  const fenced = await rejection(relay.send(1, "Runtime.enable"));
  assert.equal(fenced.extra.refused, true, "sent before the service heard of the detach: refused");
  await relay.send(1, "Runtime.enable", {}, undefined, true); // the service heard: reattach
  assert.deepEqual(relay.attachedTabIds(), [1]);
});

test("the switch survives a worker restart (chrome.storage.local)", async () => {
  const storage = new FakeStorage();
  await new AutomationSwitch({ storage }).set(true);
  assert.equal(storage.data[STORAGE_KEY], true);
  const { relay, sw } = setup(storage);
  assert.equal(sw.stopped, false, "not loaded yet");
  assert.equal(await sw.load(), true);
  await assert.rejects(relay.attach(5), { code: "automation_stopped" });
});

test("a storage that fails to read leaves automation on", async () => {
  const sw = new AutomationSwitch({ storage: { get: async () => Promise.reject(new Error("broken")) } });
  assert.equal(await sw.load(), false);
  assert.equal(sw.refusal(), null);
});
