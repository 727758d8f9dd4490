// The popup's Agents tab: pairing requests with Approve / Deny at the top, then one card per agent
// (agentsview.js's agentCards): connected or not, paired or owner token, its scopes, its spaces with
// Take over / Hand back, what it is doing now, its last 20 calls, Disconnect and Revoke. It asks the
// service over the popup channel (popup.agents, spaces.list, popup.disconnect, agents.revoke,
// popup.pairing.decide; PROTOCOL.md §2.6) every second while the popup is open, and updates only the
// parts of a card that changed, so nothing flickers and a focused button keeps its focus.

import { agentCards, describeAgents, disconnectParams, revokedWarning } from "./agentsview.js";
import { pathNodes } from "./pathview.js";
import { call, el } from "./popupdom.js";

const $ = (id) => document.getElementById(id);

function button(text, focusKey, onClick, cls = "") {
  const b = el("button", cls, text);
  b.type = "button";
  b.dataset.focus = focusKey;
  b.addEventListener("click", onClick);
  return b;
}

let refreshing = false;
let recording = null; // the trace being recorded (popup.trace), null when none
let titles = new Map(); // the tabs' titles, by ID, as the last refresh read them

async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    const [agents, spaces, tabs, trace] = await Promise.all([
      call("popup.agents", { limit: 1, perAgent: 20 }),
      call("spaces.list", { all: true }),
      chrome.tabs.query({}).catch(() => []),
      call("popup.trace", {}),
    ]);
    const problem = agents.error?.message ?? spaces.error?.message ?? "";
    showError(problem ? `Agents: ${problem}` : "");
    if (agents.error) return;
    titles = new Map(tabs.map((t) => [t.id, t.title || t.url || `tab ${t.id}`]));
    const now = Date.now();
    renderPending(describeAgents(agents.result, now).pending);
    recording = trace.result?.recording ?? null;
    renderCards(agentCards(agents.result, spaces.error ? null : spaces.result, titles, now));
  } finally {
    refreshing = false;
  }
}

function showError(text) {
  const note = $("agents-error");
  note.textContent = text;
  note.hidden = !text;
}

// showRevoked keeps, while the popup is open, where a revoked agent's script still runs.
function showRevoked(text) {
  const note = $("agents-revoked");
  note.textContent = text;
  note.hidden = !text;
}

// ---- pairing requests ----

let pendingKey = "";

function renderPending(pending) {
  const count = $("agents-pending-count");
  count.textContent = pending.length ? String(pending.length) : "";
  count.hidden = !pending.length;
  const key = JSON.stringify(pending.map((r) => [r.id, r.name, r.scopes, r.process, r.replaces]));
  $("pairing-none").hidden = pending.length > 0;
  const list = $("pairing-requests");
  if (key === pendingKey) {
    // Only the seconds left change: update them in place.
    for (const r of pending) {
      const left = list.querySelector(`li[data-request="${CSS.escape(r.id)}"] .left`);
      if (left) left.textContent = `${r.left} s left`;
    }
    return;
  }
  pendingKey = key;
  list.replaceChildren(
    ...pending.map((r) => {
      const li = el("li", "request");
      li.dataset.request = r.id;
      const head = el("div", "line");
      head.append(el("strong", "", r.name), el("span", "muted", " wants to drive this browser"), el("span", "left small muted", `${r.left} s left`));
      // The process in full (the person decides on it), broken only between its path's parts.
      const from = el("div", "small muted path", "from ");
      from.append(...pathNodes(document, r.process));
      const buttons = el("div", "buttons");
      // A request under a paired name replaces that pairing only with the person's explicit
      // approval: the warning is shown and the button says what it does.
      const replace = Boolean(r.replaces);
      buttons.append(
        button(replace ? "Replace pairing" : "Approve", `approve-${r.id}`, () => decide(r.id, true, li, replace), "approve"),
        button("Deny", `deny-${r.id}`, () => decide(r.id, false, li, false), "deny"),
      );
      li.append(head, el("div", "small", `asks for: ${r.scopes.join("; ")}`), from);
      if (replace) li.append(el("div", "small warning", `⚠ ${r.replaces}`));
      li.append(buttons);
      return li;
    }),
  );
}

async function decide(id, approve, li, replace) {
  for (const b of li.querySelectorAll("button")) b.disabled = true;
  const answer = await call("popup.pairing.decide", replace ? { id, approve, replace } : { id, approve });
  if (answer.error) showError(`Could not answer: ${answer.error.message}`);
  refresh();
}

// ---- agent cards ----

// Each card is a <li> kept across refreshes; each of its parts is rebuilt only when its content
// changed (parts[name] = the JSON it was built from).
const cardsByKey = new Map();

function renderCards(cards) {
  const list = $("agents-list");
  const seen = new Set();
  cards.forEach((card, i) => {
    seen.add(card.key);
    let li = cardsByKey.get(card.key);
    if (!li) {
      li = el("li", "agent-card");
      li.dataset.agent = card.key;
      li.parts = {};
      for (const part of ["head", "meta", "trace", "spaces", "doing", "calls"]) {
        li.parts[part] = { node: el("div", `agent-${part}`), key: null };
        li.append(li.parts[part].node);
      }
      cardsByKey.set(card.key, li);
    }
    li.classList.toggle("revoked", card.revoked);
    li.dataset.connected = String(card.connected);
    update(li.parts.head, [card.name, card.state, card.canDisconnect, card.canRevoke, card.connections], () => head(card));
    update(li.parts.meta, [card.kind, card.scopes, card.processes], () => meta(card));
    update(li.parts.trace, [traced(card)], () => traceLine(card));
    update(li.parts.spaces, card.spaces, () => spaces(card));
    update(li.parts.doing, card.doing, () => doing(card));
    update(li.parts.calls, card.calls, () => calls(card, li.parts.calls.node.querySelector("details")?.open ?? true));
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] ?? null);
  });
  for (const [key, li] of cardsByKey) {
    if (!seen.has(key)) {
      li.remove();
      cardsByKey.delete(key);
    }
  }
  $("agents-none").hidden = cards.length > 0;
}

// update rebuilds one part when its data changed, giving focus back to the button that had it.
function update(part, data, build) {
  const key = JSON.stringify(data);
  if (key === part.key) return;
  part.key = key;
  const focused = part.node.contains(document.activeElement) ? document.activeElement.dataset.focus : undefined;
  part.node.replaceChildren(...build());
  if (focused) part.node.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

function head(card) {
  const line = el("div", "line");
  const dot = el("span", `dot ${card.connected ? "green" : "grey"}`);
  dot.setAttribute("aria-hidden", "true");
  line.append(dot, el("strong", "agent-name", card.name), el("span", "agent-state muted small", card.state));
  const buttons = el("div", "buttons");
  if (card.canDisconnect) {
    const b = button("Disconnect", "disconnect", async () => {
      b.disabled = true;
      const answer = await call("popup.disconnect", disconnectParams(card));
      if (answer.error) showError(`Could not disconnect ${card.name}: ${answer.error.message}`);
      refresh();
    }, "disconnect");
    b.title = `Cut ${card.name}'s connections now (its calls in flight fail); it may connect again`;
    buttons.append(b);
  }
  if (card.canRevoke) {
    const b = button("Revoke", "revoke", async () => {
      if (b.dataset.armed !== "yes") {
        b.dataset.armed = "yes"; // a second press confirms: revoking cannot be undone
        b.textContent = "Really revoke?";
        return;
      }
      b.disabled = true;
      const answer = await call("agents.revoke", { name: card.key });
      if (answer.error) showError(`Could not revoke ${card.name}: ${answer.error.message}`);
      else showRevoked(revokedWarning(card.name, answer.result, titles));
      refresh();
    }, "revoke");
    b.title = `Revoke ${card.name}'s pairing: its token stops working; it must pair again`;
    buttons.append(b);
  }
  return [line, buttons];
}

// traced says whether the trace being recorded records the agent's calls (no agents named: everyone's).
function traced(card) {
  if (!recording || !card.key) return false;
  return !recording.agents?.length || recording.agents.includes(card.key);
}

// traceLine: a "trace on" mark and a button that opens the agent's last steps as the trace viewer's
// page (popup.trace gives the HTML; a blob: URL of this page shows it in a new tab).
function traceLine(card) {
  if (!traced(card)) return [];
  const mark = el("span", "trace-on small", "● trace on");
  mark.title = `Every call of ${card.name} is recorded with screenshots in ${recording.file}`;
  const b = button("Last steps as pictures", "trace", async () => {
    b.disabled = true;
    const answer = await call("popup.trace", { agent: card.key, last: 10 });
    b.disabled = false;
    if (answer.error) {
      showError(`Could not show ${card.name}'s trace: ${answer.error.message}`);
      return;
    }
    const url = URL.createObjectURL(new Blob([answer.result.html], { type: "text/html" }));
    await chrome.tabs.create({ url });
  }, "trace-open");
  b.title = `Open ${card.name}'s last 10 steps (screenshots before and after, the element boxed) in a new tab`;
  return [mark, b];
}

function meta(card) {
  const line = el("div", "small muted one-line", [card.kind, `scopes: ${card.scopes}`, ...card.processes.map((p) => p.text)].join(" · "));
  line.title = [card.kind, `scopes: ${card.scopes}`, ...card.processes.map((p) => p.full)].join("\n");
  return [line];
}

function spaces(card) {
  if (!card.spaces.length) return [];
  const list = el("ul", "agent-spaces");
  list.setAttribute("aria-label", `${card.name}'s spaces`);
  for (const sp of card.spaces) {
    const li = el("li", "space");
    li.dataset.space = sp.id;
    li.dataset.state = sp.state;
    const row = el("div", "space-row");
    const swatch = el("span", `swatch ${sp.color}`);
    swatch.title = sp.color;
    const title = el("span", "space-title one-line", sp.title);
    title.title = sp.title;
    const b = button(sp.button, `space-${sp.id}`, async () => {
      b.disabled = true;
      const answer = await call(sp.method, { space: sp.id });
      if (answer.error) showError(`${sp.button}: ${answer.error.message}`);
      refresh();
    }, "space-toggle");
    b.setAttribute("aria-label", `${sp.button} ${sp.title}`);
    row.append(swatch, title, b);
    // Under the title: who has it, and its tabs.
    const sub = el("div", "space-sub small muted one-line");
    const tabs = el("span", "space-tabs", sp.tabsText);
    sub.title = sp.tabs.map((t) => `${t.title} (tab ${t.id})`).join("\n");
    sub.append(el("span", `space-state ${sp.state}`, sp.stateLabel), " · ", tabs);
    li.append(row, sub);
    // The tabs to close first (a window a scripted page opened), then
    // those to reload.
    for (const t of sp.closeFirst) li.append(tabNote(t, "space-close-first", "Close", "tabs.close"));
    for (const t of sp.scripted) li.append(tabNote(t, "space-scripted", "Reload", "reload"));
    list.append(li);
  }
  return [list];
}

// tabNote is a warning about tab t ({id, title, warning}) with a button
// that calls method on the tab.
function tabNote(t, cls, label, method) {
  const note = el("div", `note warn ${cls}`, t.warning);
  const b = button(label, `${label.toLowerCase()}-${t.id}`, async () => {
    b.disabled = true;
    const answer = await call(method, { tab: t.id });
    if (answer.error) showError(`${label}: ${answer.error.message}`);
    refresh();
  });
  b.setAttribute("aria-label", `${label} ${t.title}`);
  note.append(" ", b);
  return note;
}

function doing(card) {
  if (!card.doing.length) return [];
  const list = el("ul", "agent-now small");
  list.setAttribute("aria-label", `${card.name} is doing now`);
  for (const d of card.doing) {
    const li = el("li", "one-line");
    li.title = `${d.full} (${d.for})`;
    li.append(el("span", "now-badge", "now"), ` ${d.what}${d.for ? ` · ${d.for}` : ""}`);
    list.append(li);
  }
  return [list];
}

function calls(card, open) {
  if (!card.calls.length) return [];
  const details = document.createElement("details");
  details.open = open; // as the person left it
  details.append(el("summary", "small", `Last ${card.calls.length} call${card.calls.length === 1 ? "" : "s"}`));
  const list = el("ol", "agent-calls small");
  list.setAttribute("aria-label", `${card.name}'s last calls, newest first`);
  for (const c of card.calls) {
    const li = el("li", c.ok ? "" : "failed");
    li.title = c.full;
    const what = el("span", "what", `${c.what}${c.where ? ` · ${c.where}` : ""}`);
    li.append(el("span", "time muted", c.time), what, el("span", `result ${c.ok ? "ok" : "bad"}`, c.result));
    list.append(li);
  }
  details.append(list);
  return [details];
}

chrome.runtime.onMessage.addListener((msg) => {
  if (msg?.type === "notice" && msg.topic === "pairing") refresh();
});
refresh();
setInterval(refresh, 1000);
