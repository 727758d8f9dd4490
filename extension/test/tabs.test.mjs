import assert from "node:assert/strict";
import { test } from "node:test";
import { buildHandlers } from "../ops.js";
import { DebuggerRelay } from "../debugger.js";
import { PopupWindows, TabOps, installTabEvents, toTab } from "../tabs.js";
import { FakeDebugger, FakeTabs, collector } from "./fakes.mjs";

const TABS = [
  { id: 1, windowId: 1, url: "https://a.example/", title: "A", active: true, status: "complete" },
  { id: 2, windowId: 1, url: "https://b.example/", title: "B", active: false, status: "loading" },
];

test("toTab gives the wire shape, pendingUrl while loading", () => {
  assert.deepEqual(toTab(TABS[0], (id) => id === 1), {
    id: 1,
    windowId: 1,
    url: "https://a.example/",
    title: "A",
    active: true,
    status: "complete",
    attached: true,
  });
  const fresh = toTab({ id: 3, windowId: 2, url: "", pendingUrl: "https://c.example/", active: false, status: "loading" });
  assert.equal(fresh.url, "https://c.example/");
  assert.equal(fresh.title, "");
  assert.equal(fresh.attached, false);
  assert.equal("openerTabId" in fresh, false);
  const opened = toTab({ id: 4, windowId: 1, url: "", pendingUrl: "https://a.example/next", openerTabId: 1, active: true, status: "loading" });
  assert.equal(opened.openerTabId, 1);
});

function setup() {
  const tabs = new FakeTabs(TABS);
  const windows = { focused: [], update: async (id, props) => windows.focused.push([id, props]) };
  const dbg = new FakeDebugger();
  const relay = new DebuggerRelay({ dbg, emit: () => {} });
  const tabOps = new TabOps({ tabs, windows, isAttached: (id) => relay.isAttached(id) });
  return { tabs, windows, dbg, relay, tabOps, h: buildHandlers({ relay, tabOps }) };
}

test("tabs ops: list, open, activate, close, and no_tab for unknown tabs", async () => {
  const { windows, relay, h } = setup();
  await relay.attach(2);
  assert.deepEqual(
    (await h["tabs.list"]({})).tabs.map((t) => [t.id, t.attached]),
    [
      [1, false],
      [2, true],
    ],
  );
  const { tab } = await h["tabs.open"]({ url: "https://c.example/", active: true });
  assert.equal(tab.url, "https://c.example/");
  assert.equal(tab.status, "loading");
  assert.deepEqual((await h["tabs.activate"]({ tabId: 2 })).tab.active, true);
  assert.deepEqual(windows.focused, [[1, { focused: true }]]);
  assert.deepEqual(await h["tabs.close"]({ tabId: 1 }), { closed: true });
  for (const op of ["tabs.close", "tabs.activate", "attach", "detach"]) {
    await assert.rejects(h[op]({ tabId: 1 }), (err) => err.code === "no_tab" && /no tab with id 1/.test(err.message), op);
  }
});

test("tabs.list shows a tab detached by something else as not attached, and reports the detach", async () => {
  const tabs = new FakeTabs(TABS);
  const dbg = new FakeDebugger();
  const events = [];
  const relay = new DebuggerRelay({ dbg, emit: (e) => events.push(e) });
  const tabOps = new TabOps({ tabs, isAttached: (id) => relay.isAttached(id) });
  const h = buildHandlers({ relay, tabOps });
  await relay.attach(2);
  dbg.attached.delete(2); // no onDetach for this one
  assert.deepEqual(
    (await h["tabs.list"]({})).tabs.map((t) => [t.id, t.attached]),
    [
      [1, false],
      [2, false],
    ],
  );
  assert.deepEqual(events, [{ event: "detached", tabId: 2, reason: "not_attached" }]);
});

test("ping, echo, attach and detach handlers", async () => {
  const { dbg, h } = setup();
  assert.deepEqual(await h.ping({}), { pong: true });
  assert.deepEqual(await h.echo({ data: "😀" }), { data: "😀", length: 1 });
  assert.deepEqual(await h.attach({ tabId: 1 }), { attached: true, already: false });
  assert.deepEqual(await h.attach({ tabId: 1 }), { attached: true, already: true });
  assert.deepEqual(await h.detach({ tabId: 1 }), { detached: true });
  assert.deepEqual(await h.detach({ tabId: 1 }), { detached: true });
  assert.equal(dbg.count("detach"), 1);
});

test("tab events are forwarded; updates only for fields of the Tab shape", () => {
  const tabs = new FakeTabs();
  const { events, emit } = collector();
  installTabEvents(tabs, emit, () => false);
  tabs.onCreated.fire(TABS[0]);
  tabs.onUpdated.fire(1, { favIconUrl: "x" }, TABS[0]);
  tabs.onUpdated.fire(1, { status: "complete" }, TABS[0]);
  tabs.onActivated.fire({ tabId: 2, windowId: 1 });
  tabs.onRemoved.fire(1, { windowId: 1, isWindowClosing: false });
  assert.deepEqual(
    events.map((e) => e.event),
    ["tab.created", "tab.updated", "tab.activated", "tab.removed"],
  );
  assert.deepEqual(events[0].tab, toTab(TABS[0]));
  assert.deepEqual(events[2], { event: "tab.activated", tabId: 2, windowId: 1 });
  assert.deepEqual(events[3], { event: "tab.removed", tabId: 1 });
});

test("tabs.list marks the last focused window's tabs as focused", async () => {
  const tabs = new FakeTabs([...TABS, { id: 5, windowId: 2, url: "https://d.example/", title: "D", active: true, status: "complete" }]);
  const windows = { getLastFocused: async () => ({ id: 2 }), update: async () => {} };
  const tabOps = new TabOps({ tabs, windows });
  const listed = (await tabOps.list()).tabs.map((t) => [t.id, t.focused === true]);
  assert.deepEqual(listed, [
    [1, false],
    [2, false],
    [5, true],
  ]);
});

test("tabs.focused is the last focused window's active tab, else any active tab, else none", async () => {
  const tabs = new FakeTabs([...TABS, { id: 5, windowId: 2, url: "https://d.example/", title: "D", active: true, status: "complete" }]);
  let last = 2; // the window chrome.windows.getLastFocused names (none when null)
  const windows = { getLastFocused: async ({ windowTypes }) => (assert.deepEqual(windowTypes, ["normal", "popup"]), last === null ? null : { id: last }) };
  const tabOps = new TabOps({ tabs, windows, isAttached: (id) => id === 5 });
  assert.deepEqual(await tabOps.focused(), { tab: { ...toTab(tabs.tabs.get(5), () => true), focused: true } });
  last = 1;
  assert.equal((await tabOps.focused()).tab.id, 1);
  last = null; // Chrome names no window: any window's active tab, not marked focused
  assert.deepEqual(await tabOps.focused(), { tab: toTab(tabs.tabs.get(1)) }); // the first window's, not marked focused
  for (const t of tabs.tabs.values()) t.active = false;
  assert.deepEqual(await tabOps.focused(), { tab: null });
});

test("a popup window's tab says so: from the windows listed at start, then from chrome.windows' events", async () => {
  const listeners = { created: [], removed: [] };
  const windows = {
    onCreated: { addListener: (f) => listeners.created.push(f) },
    onRemoved: { addListener: (f) => listeners.removed.push(f) },
    getAll: async ({ windowTypes }) => (assert.deepEqual(windowTypes, ["popup"]), [{ id: 7, type: "popup" }]),
  };
  const popups = new PopupWindows(windows);
  assert.equal(popups.has(7), false, "not before the list is read");
  await popups.load();
  assert.equal(popups.has(7), true);
  for (const f of listeners.created) f({ id: 8, type: "popup" });
  for (const f of listeners.created) f({ id: 9, type: "normal" });
  assert.deepEqual([7, 8, 9].map((id) => popups.has(id)), [true, true, false]);
  for (const f of listeners.removed) f(7);
  assert.equal(popups.has(7), false, "a closed window is forgotten");

  const isPopup = (id) => popups.has(id);
  const signIn = { id: 12, windowId: 8, url: "https://id.example/", openerTabId: 1, active: true, status: "loading" };
  assert.equal(toTab(signIn, () => false, isPopup).popup, true);
  assert.equal("popup" in toTab(TABS[0], () => false, isPopup), false, "a normal window's tab has no popup field");
  const tabs = new FakeTabs([...TABS, signIn]);
  const { events, emit } = collector();
  installTabEvents(tabs, emit, () => false, isPopup);
  tabs.onCreated.fire(signIn);
  assert.equal(events[0].tab.popup, true);
  const listed = (await new TabOps({ tabs, windows: {}, isPopup }).list()).tabs;
  assert.deepEqual(listed.filter((t) => t.popup).map((t) => t.id), [12]);
  // Shown as a tab: Chrome moves it to a new normal window, which only onAttached tells.
  tabs.tabs.get(12).windowId = 13;
  tabs.onAttached.fire(12, { newWindowId: 13, newPosition: 0 });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(events.at(-1), { event: "tab.updated", tab: toTab({ ...signIn, windowId: 13 }) });
});
