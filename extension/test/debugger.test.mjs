import assert from "node:assert/strict";
import { test } from "node:test";
import { DebuggerRelay } from "../debugger.js";
import { FakeDebugger, collector, deferred, rejection, tick } from "./fakes.mjs";

function setup() {
  const dbg = new FakeDebugger();
  const { events, emit } = collector();
  const relay = new DebuggerRelay({ dbg, emit });
  relay.install();
  return { dbg, events, relay };
}

test("concurrent attaches of one tab share one chrome.debugger.attach", async () => {
  const { dbg, relay } = setup();
  const gate = deferred();
  dbg.attachImpl = () => gate.promise;
  const calls = [relay.attach(7), relay.attach(7), relay.send(7, "Page.enable"), relay.send(7, "Runtime.enable")];
  await tick();
  assert.equal(dbg.count("attach"), 1);
  assert.equal(relay.isAttached(7), false, "attaching is not attached yet");
  gate.resolve();
  const [first, second, r1, r2] = await Promise.all(calls);
  assert.deepEqual(first, { attached: true, already: false });
  assert.deepEqual(second, { attached: true, already: true });
  assert.deepEqual(r1, { echo: { method: "Page.enable", params: {} } });
  assert.deepEqual(r2, { echo: { method: "Runtime.enable", params: {} } });
  assert.equal(dbg.count("attach"), 1);
  assert.deepEqual(relay.attachedTabIds(), [7]);
  assert.deepEqual(await relay.attach(7), { attached: true, already: true });
  assert.equal(dbg.count("attach"), 1);
});

test("attach errors map to already_attached, no_tab, attach_failed (shared by concurrent callers)", async () => {
  const cases = [
    ["Another debugger is already attached to the tab with id: 5.", "already_attached", /Another debugger/],
    ["No tab with given id 5.", "no_tab", /no tab with id 5/],
    ["Cannot access a chrome:// URL", "attach_failed", /^Cannot access a chrome:\/\/ URL$/],
  ];
  for (const [chromeText, code, pattern] of cases) {
    const { dbg, relay } = setup();
    dbg.attachImpl = async () => {
      throw new Error(chromeText);
    };
    const errs = await Promise.all([rejection(relay.attach(5)), rejection(relay.send(5, "Page.enable"))]);
    for (const err of errs) {
      assert.equal(err.code, code, chromeText);
      assert.match(err.message, pattern);
    }
    assert.equal(dbg.count("attach"), 1);
    assert.equal(relay.isAttached(5), false);
    // A failed attach is forgotten: the next call tries again.
    dbg.attachImpl = async () => {};
    assert.deepEqual(await relay.attach(5), { attached: true, already: false });
  }
});

test("commands go to the tab or its child session, with Chrome's result", async () => {
  const { dbg, relay } = setup();
  dbg.commandImpl = async (target, method, params) => ({ target, method, params });
  assert.deepEqual(await relay.send(3, "Runtime.evaluate", { expression: "1" }), {
    target: { tabId: 3 },
    method: "Runtime.evaluate",
    params: { expression: "1" },
  });
  assert.deepEqual((await relay.send(3, "Page.enable", undefined, "S1")).target, { tabId: 3, sessionId: "S1" });
  dbg.commandImpl = async () => undefined;
  assert.deepEqual(await relay.send(3, "Page.enable"), {});
});

test("command failures: cdp_error with Chrome's code and message", async () => {
  const { dbg, relay } = setup();
  dbg.commandImpl = async (target, method) => {
    if (method === "Foo.bar") throw new Error(`{"code":-32601,"message":"'Foo.bar' wasn't found"}`);
    if (method === "Runtime.evaluate") {
      throw new Error(`{"code":-32602,"data":"Failed to deserialize params.expression","message":"Invalid parameters"}`);
    }
    throw new Error("something odd");
  };
  assert.deepEqual((await rejection(relay.send(1, "Foo.bar"))).toWire(), {
    code: "cdp_error",
    message: "'Foo.bar' wasn't found",
    cdpCode: -32601,
  });
  assert.deepEqual((await rejection(relay.send(1, "Runtime.evaluate", { expression: 5 }))).toWire(), {
    code: "cdp_error",
    message: "Invalid parameters: Failed to deserialize params.expression",
    cdpCode: -32602,
  });
  assert.deepEqual((await rejection(relay.send(1, "Page.odd"))).toWire(), { code: "cdp_error", message: "Page.odd: something odd" });
  assert.equal(relay.isAttached(1), true, "a CDP error leaves the session alone");
});

test("sendThen sends the second command on the first's answer, not when a dialog opened meanwhile", async () => {
  const { dbg, relay } = setup();
  const press = deferred();
  dbg.commandImpl = async (target, method, params) => {
    if (params?.type === "mousePressed") await press.promise;
    return { method, type: params?.type };
  };
  const down = { type: "mousePressed", x: 1, y: 2 };
  const up = { type: "mouseReleased", x: 1, y: 2 };
  // Both answered: the release went only once the press had its answer.
  const both = relay.sendThen(4, "Input.dispatchMouseEvent", down, undefined, false, { method: "Input.dispatchMouseEvent", params: up });
  await tick();
  assert.deepEqual(dbg.calls.filter((c) => c[0] === "sendCommand").map((c) => c[3].type), ["mousePressed"], "the release waits for the press's answer");
  press.resolve();
  assert.deepEqual(await both, {
    result: { method: "Input.dispatchMouseEvent", type: "mousePressed" },
    then: { method: "Input.dispatchMouseEvent", type: "mouseReleased" },
  });
  // A dialog the press opened: Chrome answers the press once the dialog is closed, and the
  // release is not sent.
  const gate = deferred();
  dbg.commandImpl = async (target, method, params) => {
    if (params?.type === "mousePressed") await gate.promise;
    return {};
  };
  const sent = dbg.count("sendCommand");
  const stopped = relay.sendThen(4, "Input.dispatchMouseEvent", down, undefined, false, { method: "Input.dispatchMouseEvent", params: up });
  await tick();
  dbg.onEvent.fire({ tabId: 4 }, "Page.javascriptDialogOpening", { type: "alert", message: "pressed" });
  gate.resolve();
  assert.deepEqual(await stopped, { result: {}, skipped: "dialog" });
  assert.equal(dbg.count("sendCommand"), sent + 1, "the release never reached Chrome");
  // Another tab's dialog changes nothing.
  const other = relay.sendThen(4, "Input.dispatchMouseEvent", down, undefined, false, { method: "Input.dispatchMouseEvent", params: up });
  dbg.onEvent.fire({ tabId: 5 }, "Page.javascriptDialogOpening", { type: "alert", message: "elsewhere" });
  assert.deepEqual(await other, { result: {}, then: {} });
});

test("sendThen: a failing second command says so (then: true); a bad then is bad_request", async () => {
  const { dbg, relay } = setup();
  dbg.commandImpl = async (target, method) => {
    if (method === "Foo.bar") throw new Error(`{"code":-32601,"message":"'Foo.bar' wasn't found"}`);
    return {};
  };
  assert.deepEqual((await rejection(relay.sendThen(2, "Page.enable", {}, undefined, false, { method: "Foo.bar" }))).toWire(), {
    code: "cdp_error",
    message: "'Foo.bar' wasn't found",
    cdpCode: -32601,
    then: true,
  });
  const first = (await rejection(relay.sendThen(2, "Foo.bar", {}, undefined, false, { method: "Page.enable" }))).toWire();
  assert.equal(first.then, undefined, "the first command's failure is not the second's");
  for (const bad of [{}, { method: 5 }, { method: "Page.enable", params: [] }, { method: "Page.enable", params: null }]) {
    const sent = dbg.count("sendCommand");
    assert.equal((await rejection(relay.sendThen(2, "Page.enable", {}, undefined, false, bad))).code, "bad_request", JSON.stringify(bad));
    assert.equal(dbg.count("sendCommand"), sent, "nothing is sent for a bad then");
  }
});

test("onDetach: detached event, in-flight commands fail with the reason, the tab fenced until the service's next command re-attaches", async () => {
  const { dbg, events, relay } = setup();
  await relay.attach(9);
  const hang = deferred();
  dbg.commandImpl = () => hang.promise;
  const inflight = relay.send(9, "Runtime.evaluate", { expression: "await new Promise(() => {})" });
  await tick();

  dbg.chromeDetaches(9, "canceled_by_user");
  const err = await rejection(inflight);
  assert.deepEqual(err.toWire(), { code: "detached", message: "debugger detached from tab 9 (canceled_by_user)", reason: "canceled_by_user" });
  assert.deepEqual(events, [{ event: "detached", tabId: 9, reason: "canceled_by_user" }]);
  assert.equal(relay.isAttached(9), false);
  hang.reject(new Error("Detached while handling command.")); // Chrome's late answer changes nothing

  dbg.commandImpl = async () => ({ ok: true });
  assert.equal((await rejection(relay.send(9, "Page.enable"))).extra.refused, true, "sent before the service heard: refused");
  assert.equal(dbg.count("attach"), 1, "a fenced command attaches nothing");
  assert.deepEqual(await relay.send(9, "Page.enable", {}, undefined, true), { ok: true });
  assert.equal(dbg.count("attach"), 2);
  assert.equal(relay.isAttached(9), true);
});

test("a command Chrome says is not attached ends the session like any detach: detached event, in-flight commands fail, re-attach next time", async () => {
  const { dbg, events, relay } = setup();
  await relay.attach(4);
  const hang = deferred();
  dbg.commandImpl = () => hang.promise;
  const inflight = relay.send(4, "Runtime.evaluate", { expression: "await new Promise(() => {})" });
  await tick();
  dbg.attached.delete(4); // something else detached our session; Chrome sends no onDetach for that
  const err = await rejection(relay.send(4, "Page.enable"));
  assert.equal(err.code, "detached");
  assert.equal(err.extra.reason, "not_attached");
  assert.equal((await rejection(inflight)).extra.reason, "not_attached", "the other command in flight fails too");
  assert.deepEqual(events, [{ event: "detached", tabId: 4, reason: "not_attached", refused: true }]);
  assert.equal(relay.isAttached(4), false);
  assert.deepEqual(relay.attachedTabIds(), []);

  dbg.commandImpl = async () => ({ ok: true });
  await relay.send(4, "Page.enable", {}, undefined, true); // the service heard of the detach
  assert.equal(dbg.count("attach"), 2);
  assert.equal(relay.isAttached(4), true);
  assert.equal(events.length, 1, "a re-attach emits nothing");
});

test("a command Chrome refused because the session is gone: refused, the commands in flight too, and the tab fenced until a command with reattach", async () => {
  const { dbg, events, relay } = setup();
  await relay.attach(5);
  const hang = deferred();
  dbg.commandImpl = () => hang.promise;
  const inflight = relay.send(5, "Page.getFrameTree", {});
  await tick();
  dbg.attached.delete(5); // something else detached our session; Chrome sends no onDetach for that
  const err = await rejection(relay.send(5, "Runtime.evaluate", { expression: "1" }));
  const refused = { code: "detached", message: "debugger detached from tab 5 (not_attached)", reason: "not_attached", refused: true };
  assert.deepEqual(err.toWire(), refused);
  assert.deepEqual((await rejection(inflight)).toWire(), refused, "in flight on the gone session: refused too");
  assert.deepEqual(events, [{ event: "detached", tabId: 5, reason: "not_attached", refused: true }]);

  // Sent before the service heard: refused without reaching Chrome.
  dbg.commandImpl = async () => ({ ok: true });
  const commands = dbg.count("sendCommand");
  assert.deepEqual((await rejection(relay.send(5, "Runtime.evaluate", {}))).toWire(), refused);
  assert.equal(dbg.count("sendCommand"), commands, "a fenced command never reaches Chrome");
  assert.equal(dbg.count("attach"), 1);
  // The service heard: its next command attaches again and runs.
  assert.deepEqual(await relay.send(5, "Runtime.evaluate", {}, undefined, true), { ok: true });
  assert.equal(dbg.count("attach"), 2);
  assert.deepEqual(await relay.send(5, "Runtime.evaluate", {}), { ok: true }, "the fence is gone");

  // A command in flight when the session went may have run: not refused; the tab is fenced all the same.
  dbg.commandImpl = async (target) => {
    dbg.attached.delete(target.tabId); // detached by something else while Chrome ran it
    throw new Error("Detached while handling command.");
  };
  const late = await rejection(relay.send(5, "Input.dispatchMouseEvent", {}));
  assert.deepEqual(late.toWire(), { code: "detached", message: "debugger detached from tab 5 (not_attached)", reason: "not_attached" });
  assert.deepEqual(events[1], { event: "detached", tabId: 5, reason: "not_attached" });
  dbg.commandImpl = async () => ({ ok: true });
  assert.deepEqual((await rejection(relay.send(5, "Runtime.evaluate", {}))).toWire(), refused, "sent before the service heard: refused");
  assert.deepEqual(await relay.send(5, "Runtime.evaluate", {}, undefined, true), { ok: true });
});

test("unfenceAll lifts the fences: a new service link knows nothing of them", async () => {
  const { dbg, relay } = setup();
  await relay.attach(6);
  dbg.attached.delete(6);
  await rejection(relay.send(6, "Runtime.evaluate", {}));
  assert.equal((await rejection(relay.send(6, "Runtime.evaluate", {}))).extra.refused, true);
  relay.unfenceAll();
  assert.deepEqual(await relay.send(6, "Runtime.evaluate", {}), { echo: { method: "Runtime.evaluate", params: {} } });
});

test("concurrent commands that all find the session gone report one detached event", async () => {
  const { dbg, events, relay } = setup();
  await relay.attach(8);
  dbg.attached.delete(8);
  const errs = await Promise.all([rejection(relay.send(8, "A.a")), rejection(relay.send(8, "B.b"))]);
  assert.deepEqual(
    errs.map((e) => e.code),
    ["detached", "detached"],
  );
  assert.deepEqual(events, [{ event: "detached", tabId: 8, reason: "not_attached", refused: true }]);
});

test("a tab closed under a command is no_tab", async () => {
  const { dbg, relay } = setup();
  dbg.commandImpl = async () => {
    throw new Error("No tab with given id 2.");
  };
  assert.equal((await rejection(relay.send(2, "Page.enable"))).code, "no_tab");
});

test("detach: emits detached with the reason, fails commands in flight, is idempotent", async () => {
  const { dbg, events, relay } = setup();
  assert.deepEqual(await relay.detach(6), { detached: true });
  assert.equal(dbg.count("detach"), 0, "nothing to detach");
  await relay.attach(6);
  const hang = deferred();
  dbg.commandImpl = () => hang.promise;
  const inflight = relay.send(6, "Runtime.evaluate");
  await tick();
  assert.deepEqual(await relay.detach(6, "requested"), { detached: true });
  assert.equal((await rejection(inflight)).extra.reason, "requested");
  assert.deepEqual(events, [{ event: "detached", tabId: 6, reason: "requested" }]);
  assert.equal(relay.isAttached(6), false);
  assert.equal(dbg.attached.has(6), false);
  dbg.commandImpl = async () => ({ ok: true });
  assert.deepEqual(await relay.send(6, "Runtime.evaluate"), { ok: true }, "the service asked for the detach: no fence");
});

test("a detach the service did not ask for (the popup, a forbidden page, Stop all) fences the tab", async () => {
  const { dbg, relay } = setup();
  await relay.attach(6);
  await relay.detach(6, "detached_in_popup");
  const err = await rejection(relay.send(6, "Runtime.evaluate"));
  assert.deepEqual(err.toWire(), { code: "detached", message: "debugger detached from tab 6 (detached_in_popup)", reason: "detached_in_popup", refused: true });
  assert.equal(dbg.count("attach"), 1);
  assert.deepEqual(await relay.send(6, "Runtime.evaluate", {}, undefined, true), { echo: { method: "Runtime.evaluate", params: {} } });
});

test("CDP events are forwarded with tabId and sessionId", () => {
  const { dbg, events } = setup();
  dbg.onEvent.fire({ tabId: 3 }, "Page.loadEventFired", { timestamp: 1 });
  dbg.onEvent.fire({ tabId: 3, sessionId: "S2" }, "Runtime.consoleAPICalled", { type: "log" });
  dbg.onEvent.fire({ targetId: "T" }, "Ignored.event", {});
  assert.deepEqual(events, [
    { event: "cdp", tabId: 3, method: "Page.loadEventFired", params: { timestamp: 1 } },
    { event: "cdp", tabId: 3, sessionId: "S2", method: "Runtime.consoleAPICalled", params: { type: "log" } },
  ]);
});

test("events the service made quiet are not forwarded; the page guard sees them all the same", () => {
  const seen = [];
  const { events, emit } = collector();
  const relay = new DebuggerRelay({ dbg: new FakeDebugger(), emit, pages: { noteEvent: (source, method, params) => void seen.push(params?.name ?? method) } });
  const fire = (method, params) => relay.handleEvent({ tabId: 3 }, method, params);
  assert.deepEqual(relay.setQuiet(["Network.dataReceived"], ["firstPaint"]), { quiet: 2 });
  fire("Network.dataReceived", { requestId: "1" });
  fire("Network.loadingFinished", { requestId: "1" });
  fire("Page.lifecycleEvent", { name: "firstPaint" });
  fire("Page.lifecycleEvent", { name: "load" });
  assert.deepEqual(events.map((e) => e.params.name ?? e.method), ["Network.loadingFinished", "load"]);
  assert.deepEqual(seen, ["Network.dataReceived", "Network.loadingFinished", "firstPaint", "load"]);
  // A new set replaces the old one; an empty one forwards everything.
  relay.setQuiet([], []);
  fire("Network.dataReceived", { requestId: "2" });
  fire("Page.lifecycleEvent", { name: "firstPaint" });
  assert.deepEqual(events.slice(2).map((e) => e.params.name ?? e.method), ["Network.dataReceived", "firstPaint"]);
});

test("onDetach of a tab we did not track still tells the service", () => {
  const { dbg, events } = setup();
  dbg.onDetach.fire({ tabId: 12 }, "target_closed");
  assert.deepEqual(events, [{ event: "detached", tabId: 12, reason: "target_closed" }]);
});

test("an attach that never answers fails after the attach timeout, and a late one is undone", async () => {
  const dbg = new FakeDebugger();
  const { emit } = collector();
  const relay = new DebuggerRelay({ dbg, emit, attachTimeoutMs: 20 });
  relay.install();
  const gate = deferred();
  dbg.attachImpl = () => gate.promise;
  const err = await rejection(relay.send(7, "Page.enable"));
  assert.equal(err.code, "attach_failed");
  assert.match(err.message, /tab 7 took over 20 ms/);
  assert.equal(relay.isAttached(7), false);
  gate.resolve(); // Chrome finishes the attach after all: egohost lets go of the tab
  await tick();
  await tick();
  assert.equal(dbg.attached.has(7), false, "the late attach was detached");
  dbg.attachImpl = async () => {};
  assert.deepEqual(await relay.attach(7), { attached: true, already: false }, "the next attach starts afresh");
});

test("reconcile ends the sessions Chrome no longer has, like any detach; a command Chrome never answers fails after the grace", async () => {
  const dbg = new FakeDebugger();
  const { events, emit } = collector();
  const relay = new DebuggerRelay({ dbg, emit, reconcileGraceMs: 20 });
  relay.install();
  await relay.attach(1);
  await relay.attach(2);
  const hang = deferred();
  dbg.commandImpl = () => hang.promise;
  const inflight = relay.send(2, "Runtime.evaluate");
  await tick();
  dbg.knownTabs = [1, 2, 3];
  dbg.attached.delete(2); // detached by something else, no onDetach
  await relay.reconcile();
  assert.deepEqual(relay.attachedTabIds(), [1]);
  assert.deepEqual(events, [{ event: "detached", tabId: 2, reason: "not_attached" }]);
  assert.equal((await rejection(inflight)).extra.reason, "not_attached");
  await relay.reconcile();
  assert.equal(events.length, 1, "nothing more to report");
});

test("reconcile waits for Chrome's own answer to a command in flight on a gone session: refused, so the service may send it again", async () => {
  const { dbg, events, relay } = setup();
  await relay.attach(4);
  const sent = deferred();
  const answer = deferred();
  dbg.commandImpl = () => {
    sent.resolve();
    return answer.promise;
  };
  const inflight = relay.send(4, "Runtime.evaluate");
  await sent.promise;
  dbg.attached.delete(4); // detached by something else, no onDetach, while the command is on its way
  const reconciled = relay.reconcile();
  await tick();
  await tick();
  assert.deepEqual(events, [], "nothing decided before Chrome answers the command");
  answer.reject(new Error("Debugger is not attached to the tab with id: 4."));
  await reconciled;
  const want = { code: "detached", message: "debugger detached from tab 4 (not_attached)", reason: "not_attached", refused: true };
  assert.deepEqual((await rejection(inflight)).toWire(), want);
  assert.deepEqual(events, [{ event: "detached", tabId: 4, reason: "not_attached", refused: true }], "one detach, the refused one");
  assert.deepEqual(relay.attachedTabIds(), []);
});

test("reconcile asks Chrome nothing when no session is attached, and keeps a session attached during the question", async () => {
  const { dbg, events, relay } = setup();
  await relay.reconcile();
  assert.equal(dbg.count("getTargets"), 0);

  await relay.attach(5);
  const answer = deferred();
  dbg.getTargets = async () => answer.promise;
  const pending = relay.reconcile();
  await relay.attach(6); // attached after the question: Chrome's answer does not know it yet
  answer.resolve([{ tabId: 5, attached: true }]);
  await pending;
  assert.deepEqual(relay.attachedTabIds(), [5, 6]);
  assert.deepEqual(events, []);
});

test("reconcile survives getTargets failing", async () => {
  const { dbg, events, relay } = setup();
  await relay.attach(5);
  dbg.getTargets = async () => {
    throw new Error("boom");
  };
  await relay.reconcile();
  assert.deepEqual(relay.attachedTabIds(), [5]);
  assert.deepEqual(events, []);
});
