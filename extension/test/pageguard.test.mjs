import assert from "node:assert/strict";
import { test } from "node:test";

import { DebuggerRelay, FORBIDDEN_PAGE } from "../debugger.js";
import { PageGuard, isForbiddenPage } from "../pageguard.js";
import { FakeDebugger, FakeTabs, collector, rejection, tick } from "./fakes.mjs";

const POPUP = "chrome-extension://aokapgkciafkaelljglcdibalbfomkdb/popup.html";

function setup(tabs) {
  const dbg = new FakeDebugger();
  const fakeTabs = new FakeTabs(tabs);
  const { events, emit } = collector();
  const relay = new DebuggerRelay({ dbg, emit, pages: new PageGuard({ tabs: fakeTabs }) });
  relay.install();
  return { dbg, events, relay, fakeTabs };
}

test("isForbiddenPage reads URLs as Chrome does", () => {
  const cases = {
    [POPUP]: true,
    [POPUP.toUpperCase()]: true,
    [` ${POPUP}`]: true,
    ["chrome-ext\tension://x/popup.html"]: true,
    ["\u0001chrome-extension://x/a.html"]: true,
    ["chrome://settings"]: true,
    ["devtools://devtools/bundled/inspector.html"]: true,
    ["view-source:chrome-extension://x/a.html"]: true,
    ["blob:chrome-extension://x/1234"]: true,
    ["about:settings"]: true,
    ["about:blank"]: false,
    ["about:blank#x"]: false,
    ["about:srcdoc"]: false,
    ["https://example.com/chrome-extension://x"]: false,
    ["data:text/html,chrome-extension://x"]: false,
    [""]: false,
  };
  for (const [url, want] of Object.entries(cases)) assert.equal(isForbiddenPage(url), want, JSON.stringify(url));
  assert.equal(isForbiddenPage(undefined), false);
});

test("no attach to a tab showing or loading an extension page", async () => {
  for (const tab of [
    { id: 5, url: POPUP },
    { id: 5, url: "https://example.com/", pendingUrl: POPUP },
    { id: 5, url: "chrome://settings/" },
  ]) {
    const { dbg, relay } = setup([tab]);
    const err = await rejection(relay.send(5, "Runtime.evaluate", { expression: "chrome.runtime.id" }));
    assert.equal(err.code, "forbidden_page", JSON.stringify(tab));
    assert.equal(dbg.count("attach"), 0, "chrome.debugger.attach was called");
    assert.equal(dbg.count("sendCommand"), 0);
    assert.equal(relay.isAttached(5), false);
  }
});

test("a web tab is attached and driven as before", async () => {
  const { dbg, relay } = setup([{ id: 5, url: "https://example.com/" }]);
  assert.deepEqual(await relay.send(5, "Page.enable"), { echo: { method: "Page.enable", params: {} } });
  assert.equal(dbg.count("attach"), 1);
  assert.equal(relay.wasControlled(5), true);
});

test("a debugged tab that commits an extension page is detached, and nothing more is sent to it", async () => {
  const { dbg, events, relay, fakeTabs } = setup([{ id: 5, url: "https://example.com/" }]);
  await relay.send(5, "Page.enable");
  dbg.onEvent.fire({ tabId: 5 }, "Page.frameNavigated", { frame: { id: "F", url: POPUP } });
  await tick();
  assert.equal(relay.isAttached(5), false);
  assert.ok(events.some((e) => e.event === "detached" && e.tabId === 5 && e.reason === FORBIDDEN_PAGE), JSON.stringify(events));
  fakeTabs.tabs.get(5).url = POPUP;
  const fenced = await rejection(relay.send(5, "Runtime.evaluate", { expression: "chrome.runtime.sendMessage({})" }));
  assert.equal(fenced.extra.refused, true, "sent before the service heard of the detach: refused");
  const err = await rejection(relay.send(5, "Runtime.evaluate", { expression: "chrome.runtime.sendMessage({})" }, undefined, true));
  assert.equal(err.code, "forbidden_page");
  assert.equal(dbg.count("sendCommand"), 1, "only the Page.enable before the navigation");
  assert.equal(relay.wasControlled(5), true, "the tab stays marked: code may have run in it");
});

test("a command is refused while the guard knows the tab shows an extension page", async () => {
  const { dbg, relay } = setup([{ id: 5, url: "https://example.com/" }]);
  await relay.send(5, "Page.enable");
  relay.pages.noteTab(5, { url: POPUP }); // what chrome.tabs.onUpdated tells
  const err = await rejection(relay.send(5, "Runtime.evaluate", { expression: "1" }));
  assert.equal(err.code, "forbidden_page");
  assert.equal(dbg.count("sendCommand"), 1);
});

test("no command on a child session that is an extension's frame", async () => {
  const { dbg, relay } = setup([{ id: 5, url: "https://example.com/" }]);
  await relay.send(5, "Page.enable");
  dbg.onEvent.fire({ tabId: 5 }, "Target.attachedToTarget", { sessionId: "S1", targetInfo: { targetId: "T1", type: "iframe", url: "chrome-extension://otherextension/inline.html" } });
  dbg.onEvent.fire({ tabId: 5 }, "Target.attachedToTarget", { sessionId: "S2", targetInfo: { targetId: "T2", type: "iframe", url: "https://ads.example/" } });
  const err = await rejection(relay.send(5, "Runtime.evaluate", { expression: "1" }, "S1"));
  assert.equal(err.code, "forbidden_page");
  await relay.send(5, "Runtime.evaluate", { expression: "1" }, "S2");
  // A child that navigates to an extension page is refused from then on.
  dbg.onEvent.fire({ tabId: 5, sessionId: "S2" }, "Page.frameNavigated", { frame: { id: "T2", url: "chrome-extension://otherextension/x.html" } });
  assert.equal((await rejection(relay.send(5, "Runtime.evaluate", { expression: "1" }, "S2"))).code, "forbidden_page");
  assert.equal(relay.isAttached(5), true, "a child frame does not detach the tab");
  dbg.onEvent.fire({ tabId: 5 }, "Target.detachedFromTarget", { sessionId: "S1" });
  assert.equal(dbg.count("sendCommand"), 2);
});
