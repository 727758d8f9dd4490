import assert from "node:assert/strict";
import test from "node:test";

import { validateRequest } from "../dispatch.js";
import { GroupOps } from "../groups.js";
import { installTabEvents } from "../tabs.js";

// fakeChrome is chrome.tabs.group / chrome.tabGroups over an in-memory map of tab → group.
function fakeChrome() {
  const groups = new Map();
  const member = new Map();
  let next = 100;
  return {
    member,
    tabs: {
      async get(tabId) {
        if (tabId === 404) throw new Error("No tab with id: 404.");
        return { id: tabId, windowId: 1 };
      },
      async group({ tabIds, groupId, createProperties }) {
        if (groupId === undefined) assert.deepEqual(createProperties, { windowId: 1 });
        if (tabIds.includes(404)) throw new Error("No tab with id: 404.");
        const id = groupId ?? next++;
        if (!groups.has(id)) groups.set(id, { id, title: "", color: "grey", windowId: 1 });
        for (const t of tabIds) member.set(t, id);
        return id;
      },
    },
    tabGroups: {
      async update(id, props) {
        const g = groups.get(id);
        if (!g) throw new Error(`No group with id: ${id}.`);
        Object.assign(g, props);
        return { ...g, collapsed: false };
      },
      async query() {
        return [...groups.values()].map((g) => ({ ...g }));
      },
    },
  };
}

test("groups.add makes a titled group, then adds to it", async () => {
  const c = fakeChrome();
  const ops = new GroupOps(c);
  const { groupId } = await ops.add({ tabIds: [1], title: "🤖 alice", color: "blue" });
  assert.deepEqual(await ops.add({ tabIds: [2], groupId }), { groupId });
  assert.deepEqual([...c.member], [[1, groupId], [2, groupId]]);
  assert.deepEqual(await ops.list(), { groups: [{ id: groupId, title: "🤖 alice", color: "blue", windowId: 1 }] });
  assert.deepEqual((await ops.update({ groupId, title: "✋ alice" })).group.title, "✋ alice");
});

test("groups.add of a closed tab is no_tab", async () => {
  await assert.rejects(new GroupOps(fakeChrome()).add({ tabIds: [404] }), { code: "no_tab" });
});

test("groups ops are validated", () => {
  assert.equal(validateRequest({ id: 1, op: "groups.add", tabIds: [1, 2], color: "blue" }), null);
  assert.equal(validateRequest({ id: 1, op: "groups.add", tabIds: [] }).code, "bad_request");
  assert.equal(validateRequest({ id: 1, op: "groups.add", tabIds: [1], color: "mauve" }).code, "bad_request");
  assert.equal(validateRequest({ id: 1, op: "groups.update", title: "x" }).code, "bad_request");
  assert.equal(validateRequest({ id: 1, op: "groups.list" }), null);
});

test("a tab dragged out of its group is a tab.updated without groupId", () => {
  const listeners = {};
  const on = (name) => ({ addListener: (fn) => (listeners[name] = fn) });
  const tabs = { onCreated: on("created"), onUpdated: on("updated"), onRemoved: on("removed"), onActivated: on("activated"), onAttached: on("attached") };
  const events = [];
  installTabEvents(tabs, (e) => events.push(e));
  listeners.updated(5, { groupId: 7 }, { id: 5, windowId: 1, url: "https://a/", groupId: 7 });
  listeners.updated(5, { groupId: -1 }, { id: 5, windowId: 1, url: "https://a/", groupId: -1 });
  listeners.updated(5, { favIconUrl: "x" }, { id: 5, windowId: 1, url: "https://a/", groupId: -1 });
  assert.equal(events.length, 2);
  assert.equal(events[0].tab.groupId, 7);
  assert.equal("groupId" in events[1].tab, false);
});
