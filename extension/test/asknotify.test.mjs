import assert from "node:assert/strict";
import { test } from "node:test";
import { AskNotifier, PREFIX } from "../asknotify.js";

// fakes records what the notifier asks of chrome.notifications, the service and the tabs.
function fakes({ pictures = {}, answer = { result: { decision: "allowed" } }, popup = true } = {}) {
  const shown = new Map();
  const calls = [];
  const focused = [];
  const log = { warn: () => {}, info: () => {} };
  const notifier = new AskNotifier({
    notifications: {
      create: async (id, o) => shown.set(id, o),
      clear: async (id) => shown.delete(id),
      getAll: async () => Object.fromEntries([...shown.keys()].map((id) => [id, true])),
    },
    calls: {
      call: async (method, params) => {
        calls.push({ method, params });
        if (method === "popup.confirm.list") return { result: { pending: Object.entries(pictures).map(([id, picture]) => ({ id, picture })) } };
        return answer;
      },
    },
    action: { openPopup: async () => { if (!popup) throw new Error("no window"); focused.push("popup"); } },
    tabs: { update: async (tab) => { focused.push(`tab ${tab}`); return { windowId: 9 }; } },
    windows: { update: async (w) => focused.push(`window ${w}`) },
    log,
  });
  return { notifier, shown, calls, focused };
}

const ask = (id, extra = {}) => ({ id, agent: "claude", kind: "submit", action: "click button 'Place order' on shop.example", tab: 7, ...extra });

test("an ask shows one notification: the agent, the act in words, its picture, Allow once and Deny", async () => {
  const { notifier, shown } = fakes({ pictures: { c1: "iVBORw0K" } });
  await notifier.onNotice({ badge: "?2", pending: [ask("c1"), ask("c2", { action: "go to bank.example from shop.example" })] });
  const one = shown.get(PREFIX + "c1");
  assert.equal(one.type, "image");
  assert.equal(one.imageUrl, "data:image/png;base64,iVBORw0K");
  assert.equal(one.title, "claude asks for your yes");
  assert.equal(one.message, "click button 'Place order' on shop.example");
  assert.deepEqual(one.buttons, [{ title: "Allow once" }, { title: "Deny" }]);
  assert.equal(one.requireInteraction, true);
  assert.ok(one.iconUrl.startsWith("data:image/png;base64,"));
  const two = shown.get(PREFIX + "c2");
  assert.equal(two.type, "basic");
  assert.equal(two.imageUrl, undefined);
});

test("an ask that ends is cleared; one still waiting is not shown again", async () => {
  const { notifier, shown, calls } = fakes();
  await notifier.onNotice({ pending: [ask("c1"), ask("c2")] });
  await notifier.onNotice({ pending: [ask("c2")] });
  assert.deepEqual([...shown.keys()], [PREFIX + "c2"]);
  assert.equal(calls.filter((c) => c.method === "popup.confirm.list").length, 1, "no new ask: no list call");
  await notifier.onNotice({ badge: "", pending: [] });
  assert.equal(shown.size, 0);
});

test("a notification a stopped worker left up is cleared when its ask is gone", async () => {
  const { notifier, shown } = fakes();
  shown.set(PREFIX + "c9", {});
  shown.set("someone-else", {});
  await notifier.onNotice({ pending: [] });
  assert.deepEqual([...shown.keys()], ["someone-else"]);
});

test("notices apply in order: an ask that ended before its picture came is not shown", async () => {
  const { notifier, shown } = fakes();
  const first = notifier.onNotice({ pending: [ask("c1")] });
  const second = notifier.onNotice({ pending: [] });
  await Promise.all([first, second]);
  assert.equal(shown.size, 0);
});

test("the buttons answer the ask as the popup does, and clear it", async () => {
  const { notifier, shown, calls } = fakes();
  await notifier.onNotice({ pending: [ask("c1"), ask("c2")] });
  const allowed = await notifier.onButton(PREFIX + "c1", 0);
  assert.deepEqual(allowed, { result: { decision: "allowed" } });
  await notifier.onButton(PREFIX + "c2", 1);
  const answers = calls.filter((c) => c.method === "popup.confirm.answer").map((c) => c.params);
  assert.deepEqual(answers, [{ id: "c1", allow: true }, { id: "c2", allow: false }]);
  assert.equal(shown.size, 0);
});

test("a notification not an ask's, or a button that is not there, answers nothing", async () => {
  const { notifier, calls } = fakes();
  assert.deepEqual(await notifier.onButton("other:c1", 0), { ignored: true });
  assert.deepEqual(await notifier.onButton(PREFIX + "c1", 2), { ignored: true });
  assert.deepEqual(await notifier.onButton(PREFIX, 0), { ignored: true });
  assert.equal(calls.length, 0);
});

test("a click on the body opens the popup, else focuses the ask's tab", async () => {
  const a = fakes();
  await a.notifier.onNotice({ pending: [ask("c1")] });
  await a.notifier.onClicked(PREFIX + "c1");
  assert.deepEqual(a.focused, ["popup"]);
  const b = fakes({ popup: false });
  await b.notifier.onNotice({ pending: [ask("c1")] });
  await b.notifier.onClicked(PREFIX + "c1");
  assert.deepEqual(b.focused, ["tab 7", "window 9"]);
});

test("an id that now names another ask (a restarted service) is shown anew: the old act's Allow answers nothing of it", async () => {
  const { notifier, shown } = fakes();
  await notifier.onNotice({ pending: [ask("c1")] });
  // The service restarted and its first ask took the same id (before ids were unique).
  const other = ask("c1", { agent: "mallory", kind: "navigate_new_origin", action: "go to evil.example from shop.example" });
  await notifier.onNotice({ pending: [other] });
  const n = shown.get(PREFIX + "c1");
  assert.equal(n.title, "mallory asks for your yes");
  assert.equal(n.message, "go to evil.example from shop.example");
  assert.equal(notifier.shown("c1").message, "go to evil.example from shop.example");
});

test("a relay or native host change clears every ask's notification; the old one's Allow never answers a new ask", async () => {
  const pendingNow = new Set();
  const { notifier, shown, calls } = fakes();
  await notifier.onNotice({ pending: [ask("c1-0a0a0a0a")] });
  shown.set("someone-else", {});
  await notifier.clearAll();
  assert.deepEqual([...shown.keys()], ["someone-else"]);
  assert.equal(notifier.shown("c1-0a0a0a0a"), undefined);
  await notifier.onNotice({ pending: [ask("c1-1b1b1b1b", { action: "click button 'Pay' on bank.example" })] });
  pendingNow.add("c1-1b1b1b1b");
  // Chrome delivers a click on the old notification late: it answers its own id, not the new ask.
  await notifier.onButton(PREFIX + "c1-0a0a0a0a", 0);
  const answered = calls.filter((c) => c.method === "popup.confirm.answer").map((c) => c.params.id);
  assert.deepEqual(answered, ["c1-0a0a0a0a"]);
  assert.ok(!answered.some((id) => pendingNow.has(id)));
  assert.equal(shown.get(PREFIX + "c1-1b1b1b1b").message, "click button 'Pay' on bank.example");
});
