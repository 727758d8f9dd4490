// Test doubles for chrome.* APIs. Every method returns a promise, as chrome.* does in MV3.

import assert from "node:assert/strict";

/** rejection awaits promise and returns the error it rejects with; it fails the test when it resolves. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("want a rejection");
}

/** FakeEvent is a chrome.events.Event: addListener, and fire() to call the listeners. */
export class FakeEvent {
  listeners = [];
  addListener(fn) {
    this.listeners.push(fn);
  }
  fire(...args) {
    for (const fn of this.listeners) fn(...args);
  }
}

/** deferred returns a promise with its resolve and reject exposed. */
export function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** tick lets queued promise callbacks run. */
export async function tick(n = 5) {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/**
 * FakeDebugger is chrome.debugger. attach and sendCommand behave per the hooks attachImpl and
 * commandImpl (defaults: succeed); calls are recorded.
 */
export class FakeDebugger {
  onEvent = new FakeEvent();
  onDetach = new FakeEvent();
  calls = [];
  attached = new Set();
  attachImpl = async () => {};
  commandImpl = async (target, method, params) => ({ echo: { method, params } });

  async attach(target, version) {
    this.calls.push(["attach", target.tabId, version]);
    await this.attachImpl(target);
    if (this.attached.has(target.tabId)) throw new Error(`Another debugger is already attached to the tab with id: ${target.tabId}.`);
    this.attached.add(target.tabId);
  }
  async detach(target) {
    this.calls.push(["detach", target.tabId]);
    if (!this.attached.delete(target.tabId)) throw new Error(`Debugger is not attached to the tab with id: ${target.tabId}.`);
  }
  async sendCommand(target, method, params) {
    this.calls.push(["sendCommand", target, method, params]);
    if (!this.attached.has(target.tabId)) throw new Error(`Debugger is not attached to the tab with id: ${target.tabId}.`);
    return this.commandImpl(target, method, params);
  }
  async getTargets() {
    this.calls.push(["getTargets"]);
    return [...this.tabIds].map((tabId) => ({ tabId, type: "page", attached: this.attached.has(tabId) }));
  }
  get tabIds() {
    return new Set([...this.attached, ...(this.knownTabs ?? [])]);
  }
  /** chromeDetaches simulates Chrome ending a session (tab closed, user cancelled). */
  chromeDetaches(tabId, reason) {
    this.attached.delete(tabId);
    this.onDetach.fire({ tabId }, reason);
  }
  count(kind) {
    return this.calls.filter((c) => c[0] === kind).length;
  }
}

/** FakeTabs is chrome.tabs over an in-memory list. */
export class FakeTabs {
  onCreated = new FakeEvent();
  onUpdated = new FakeEvent();
  onRemoved = new FakeEvent();
  onActivated = new FakeEvent();
  onAttached = new FakeEvent();
  nextId = 100;
  constructor(tabs = []) {
    this.tabs = new Map(tabs.map((t) => [t.id, { ...t }]));
  }
  #get(tabId) {
    const t = this.tabs.get(tabId);
    if (!t) throw new Error(`No tab with id: ${tabId}.`);
    return t;
  }
  async query(filter = {}) {
    return [...this.tabs.values()]
      .filter((t) => filter.active === undefined || t.active === filter.active)
      .filter((t) => filter.windowId === undefined || t.windowId === filter.windowId)
      .map((t) => ({ ...t }));
  }
  async get(tabId) {
    return { ...this.#get(tabId) };
  }
  async create({ url, active }) {
    const tab = { id: this.nextId++, windowId: 1, url: "", pendingUrl: url, title: "", active, status: "loading" };
    this.tabs.set(tab.id, tab);
    return { ...tab };
  }
  async remove(tabId) {
    this.#get(tabId);
    this.tabs.delete(tabId);
  }
  async update(tabId, props) {
    const t = this.#get(tabId);
    if (props.active) for (const other of this.tabs.values()) if (other.windowId === t.windowId) other.active = other === t;
    return { ...t };
  }
}

/** FakePort is a chrome.runtime.Port; postMessage records messages or throws via postImpl. */
export class FakePort {
  onMessage = new FakeEvent();
  onDisconnect = new FakeEvent();
  sent = [];
  disconnected = false;
  postImpl = (msg) => this.sent.push(msg);
  postMessage(msg) {
    this.postImpl(msg);
  }
  disconnect() {
    this.disconnected = true;
  }
}

/** collector returns an emit function and the array it fills. */
export function collector() {
  const events = [];
  return { events, emit: (e) => events.push(e) };
}
