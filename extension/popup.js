// The popup: a person's front end on the service (issue 12). Everything it shows about a page is
// computed by the service over the popup channel (PROTOCOL.md §2.6); the views are in
// statusview.js, snapshotview.js, locatorview.js and errorhelp.js, this file wires them to the DOM.

import { explainError } from "./errorhelp.js";
import { Debouncer, pickView, testerView } from "./locatorview.js";
import { pathNodes } from "./pathview.js";
import { snapshotLines, snapshotSummary } from "./snapshotview.js";
import { agentsView, describeStatus } from "./statusview.js";

const $ = (id) => document.getElementById(id);
let lastStatus = null;
let busy = false;
let target = { id: 0, title: "", url: "" }; // the tab the panels work on
let agentsInfo = null;

// An open popup keeps a port to the worker: when it closes, the worker takes its boxes off the page
// it drew in (told once it draws: a popup that only looked at the status attaches nothing).
const port = chrome.runtime.connect({ name: "popup" });
let drew = false;
function drawing() {
  if (drew) return;
  drew = true;
  port.postMessage({ tab: target.id });
}

$("extension-id").textContent = chrome.runtime.id;
$("version").textContent = `v${chrome.runtime.getManifest().version}`;
$("reconnect").addEventListener("click", () => act({ type: "reconnect" }));
$("automation").addEventListener("click", toggleAutomation);
$("snapshot").addEventListener("click", takeSnapshot);
$("pick").addEventListener("click", pick);
$("copy-locator").addEventListener("click", () => copy($("pick-locator").textContent));
$("copy-ref").addEventListener("click", () => copy($("pick-ref").textContent));
const selectPanel = setupTabs();
setupTester();
setupSnapshotList();

chrome.runtime.onMessage.addListener((msg) => {
  if (msg?.type === "notice" && msg.topic === "pick") showFreshPick(msg.params);
});

init();

async function init() {
  if (new URLSearchParams(location.search).has("tab")) document.documentElement.classList.add("page");
  target = await chooseTarget();
  $("target-tab").textContent = target.id ? `${target.title || target.url || "(untitled)"} (tab ${target.id})` : "no web page in this window";
  refresh();
  setInterval(refresh, 1000);
  const last = await serviceCall("popup.lastPick");
  let p = last.result?.pick ?? null;
  if (!p) {
    // The service's copy is per link: after a reconnect, the worker's copy of the pick notice.
    try {
      p = (await chrome.storage.session.get("notices")).notices?.pick?.params ?? null;
    } catch {
      // none saved
    }
  }
  if (p) showFreshPick(p);
}

// showFreshPick shows a pick, on the Locators panel when it is of this tab and recent: the popup
// was opened again just after it (it closed as the person clicked into the page).
function showFreshPick(p) {
  showPick(p);
  if (p && !p.cancelled && p.tab === target.id && Date.now() - p.at < 60_000) selectPanel("tab-locator", false);
}

// chooseTarget is the tab the popup works on: ?tab=N when the popup is opened as a page, else the
// active tab of this window (or, when that is an extension page, its most recently used web page).
async function chooseTarget() {
  const asked = Number.parseInt(new URLSearchParams(location.search).get("tab") ?? "", 10);
  try {
    if (asked > 0) {
      const t = await chrome.tabs.get(asked);
      return { id: t.id, title: t.title ?? "", url: t.url ?? "" };
    }
    const tabs = (await chrome.tabs.query({ currentWindow: true })).filter((t) => !String(t.url ?? "").startsWith("chrome-extension://"));
    tabs.sort((a, b) => Number(b.active) - Number(a.active) || (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
    if (tabs[0]) return { id: tabs[0].id, title: tabs[0].title ?? "", url: tabs[0].url ?? "" };
  } catch {
    // no such tab: nothing to work on
  }
  return { id: 0, title: "", url: "" };
}

async function serviceCall(method, params) {
  try {
    return (await chrome.runtime.sendMessage({ type: "service.call", method, params })) ?? { error: { name: "service_down", message: "no answer" } };
  } catch (err) {
    return { error: { name: "service_down", message: err.message } };
  }
}

// ---- panels (a tablist: arrows, Home and End move between tabs) ----

function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const select = (tab, focus = true) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute("aria-controls")).hidden = !on;
    }
    if (focus && tab.id === "tab-locator") $("locator").focus();
  };
  for (const t of tabs) {
    t.addEventListener("click", () => select(t));
    t.addEventListener("keydown", (e) => {
      const i = tabs.indexOf(t);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      const next = tabs[(to + tabs.length) % tabs.length];
      next.focus();
      select(next);
    });
  }
  return (id, focus) => select($(id), focus);
}

// ---- This tab: the snapshot ----

async function takeSnapshot() {
  if (!target.id) return;
  const button = $("snapshot");
  button.disabled = true;
  show($("snapshot-error"), "");
  $("snapshot-summary").textContent = "…";
  try {
    const answer = await serviceCall("snapshot", { tab: target.id, interactive: !$("full").checked });
    if (answer.error) {
      $("snapshot-summary").textContent = "";
      show($("snapshot-error"), explainError(answer.error));
      return;
    }
    $("snapshot-summary").textContent = snapshotSummary(answer.result);
    renderSnapshot(snapshotLines(answer.result.text));
  } finally {
    button.disabled = false;
  }
}

function renderSnapshot(lines) {
  $("snapshot-lines").replaceChildren(
    ...lines.map((line) => {
      const li = document.createElement("li");
      const text = document.createElement("span");
      text.className = "text";
      text.textContent = "  ".repeat(line.depth) + line.text;
      text.title = line.text;
      li.append(text);
      if (line.ref) {
        li.className = "has-ref";
        li.dataset.ref = line.ref;
        const ref = document.createElement("button");
        ref.type = "button";
        ref.className = "ref";
        ref.textContent = line.ref;
        ref.setAttribute("aria-label", `Copy ${line.ref}: ${line.text}`);
        li.append(ref);
      }
      return li;
    }),
  );
}

function setupSnapshotList() {
  const list = $("snapshot-lines");
  const hover = new Debouncer((ref, seq) => highlight(ref ? [ref] : [], seq, hover), 60);
  hoverItems(list, "li.has-ref", (li) => li.dataset.ref ?? "", (ref) => hover.call(ref));
  list.addEventListener("click", (e) => {
    const li = e.target.closest("li.has-ref");
    if (li) copy(li.dataset.ref);
  });
}

// hoverItems makes hovering or focusing an item of list (an li that selector matches) its active
// item and calls onItem with the item's key(li), once per change; leaving the list calls it with ""
// (no item is active then). It returns the function that makes an item (null: none) the active one.
function hoverItems(list, selector, key, onItem) {
  let current = "";
  const enter = (li) => {
    const k = li ? key(li) : "";
    if (k === current) return;
    current = k;
    for (const el of list.querySelectorAll("li.active")) el.classList.remove("active");
    if (li && k) li.classList.add("active");
    onItem(k);
  };
  list.addEventListener("mouseover", (e) => enter(e.target.closest(selector)));
  list.addEventListener("focusin", (e) => enter(e.target.closest(selector)));
  list.addEventListener("mouseleave", () => enter(null));
  return enter;
}

// highlight boxes the targets' elements in the page (none: takes the boxes off).
async function highlight(targets, seq, debouncer) {
  if (!target.id) return null;
  drawing();
  const answer = await serviceCall("popup.highlight", { tab: target.id, targets });
  return debouncer.isLatest(seq) ? answer : null;
}

// ---- Locators: the tester and the picker ----

function setupTester() {
  const input = $("locator");
  const tester = new Debouncer(async (value, seq) => {
    const trimmed = value.trim();
    const answer = trimmed ? await highlight([trimmed], seq, tester) : await highlight([], seq, tester);
    if (answer === null || !tester.isLatest(seq)) return; // a newer input is on its way
    renderTester(value, answer);
  }, 150);
  input.addEventListener("input", () => {
    if (input.value.trim() === "") renderTester("", null);
    tester.call(input.value);
  });

  // Hovering or focusing one of several matches boxes it alone (its nth locator); leaving the
  // list boxes them all again. A click on its nth copies that locator.
  const list = $("tester-matches");
  const one = new Debouncer((target, seq) => highlight(target ? [target] : [], seq, one), 60);
  const enter = hoverItems(list, "li[data-nth]", (li) => li.dataset.nth ?? "", (nth) => one.call(nth || input.value.trim()));
  list.addEventListener("focusout", (e) => {
    if (!list.contains(e.relatedTarget)) enter(null);
  });
  list.addEventListener("click", (e) => {
    const button = e.target.closest("button.nth");
    if (button) copy(button.closest("li").dataset.nth);
  });
}

function renderTester(input, answer) {
  const view = testerView(input, answer, explainError);
  const out = $("tester-result");
  const field = $("locator");
  field.setAttribute("aria-invalid", String(view.kind === "syntax"));
  const matches = $("tester-matches");
  matches.replaceChildren();
  switch (view.kind) {
    case "empty":
      out.replaceChildren();
      break;
    case "count": {
      const count = document.createElement("span");
      count.className = `count ${view.count === 0 ? "none" : view.count === 1 ? "one" : "many"}`;
      count.textContent = view.text;
      out.replaceChildren(count);
      matches.append(
        ...view.matches.slice(0, 50).map((m) => {
          const li = document.createElement("li");
          if (m.label) li.append(span("label", m.label));
          li.append(span("text", m.text));
          if (m.where) li.append(span("where muted", m.where));
          li.title = [m.label, m.text, m.where].filter(Boolean).join(" ");
          if (m.nth) {
            li.dataset.nth = m.nth;
            const b = document.createElement("button");
            b.type = "button";
            b.className = "nth";
            b.textContent = m.nth.slice(m.nth.lastIndexOf("nth="));
            b.setAttribute("aria-label", `Copy ${m.nth}: ${m.text}${m.where ? ` ${m.where}` : ""}`);
            b.title = `Copy ${m.nth}`;
            li.append(b);
          }
          return li;
        }),
      );
      break;
    }
    case "syntax": {
      const reason = document.createElement("div");
      reason.textContent = `Syntax error: ${view.text}`;
      const marked = document.createElement("div");
      marked.className = "syntax";
      const mark = document.createElement("mark");
      mark.textContent = view.at;
      marked.append(view.before, mark, view.after);
      out.replaceChildren(reason, ...(view.at ? [marked] : []));
      break;
    }
    default: {
      const p = document.createElement("div");
      p.className = "problem";
      p.textContent = view.text;
      out.replaceChildren(p);
    }
  }
}

async function pick() {
  if (!target.id) return;
  drawing();
  $("pick").disabled = true;
  $("pick-state").textContent = "Click an element in the page (Esc cancels). If this popup closes, open it again to see the result.";
  try {
    const answer = await serviceCall("popup.pick", { tab: target.id });
    if (answer.error) {
      $("pick-state").textContent =
        answer.error.name === "timeout" ? "Nothing was picked in time; press Pick an element to try again." : explainError(answer.error);
      return;
    }
    showPick(answer.result);
  } finally {
    $("pick").disabled = false;
  }
}

function showPick(p) {
  const view = pickView(p);
  if (!view) return;
  if (view.cancelled) {
    $("pick-state").textContent = "Pick cancelled.";
    return;
  }
  $("pick-state").textContent = "";
  $("pick-result").hidden = false;
  $("pick-element").textContent = view.element;
  $("pick-locator").textContent = view.locator;
  $("pick-ref").textContent = view.ref || "(no ref)";
  $("copy-ref").disabled = !view.ref;
  $("pick-where").textContent = view.where;
  $("pick-candidates").replaceChildren(
    ...view.candidates.map((c) => {
      const li = document.createElement("li");
      li.className = c.unique ? "unique" : "";
      li.textContent = `${c.locator} — ${c.note}`;
      li.title = li.textContent;
      return li;
    }),
  );
}

function span(cls, text) {
  const el = document.createElement("span");
  el.className = cls;
  el.textContent = text;
  return el;
}

// copy puts text on the clipboard and says so.
async function copy(text) {
  if (!text) return;
  let ok = true;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission without focus: the old way, through a selection.
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    ok = document.execCommand("copy");
    area.remove();
  }
  const toast = $("copied");
  toast.textContent = ok ? `Copied ${text}` : `Could not copy: select ${text} and copy it`;
  toast.dataset.text = text;
  toast.hidden = false;
  clearTimeout(copy.timer);
  copy.timer = setTimeout(() => (toast.hidden = true), 1500);
}

// ---- Stop all automation ----

async function toggleAutomation() {
  const stopped = $("automation").getAttribute("aria-checked") === "true";
  busy = true;
  $("automation").disabled = true;
  try {
    const answer = await ask({ type: "automation", stopped });
    if (answer?.status) lastStatus = answer.status;
    const note = answer?.error
      ? `The service worker refused: ${answer.error}`
      : answer?.service?.error
        ? `The switch is ${stopped ? "off" : "on"} in this browser; the service did not hear it yet: ${explainError(answer.service.error)}`
        : "";
    render(lastStatus, note);
  } finally {
    busy = false;
    $("automation").disabled = false;
  }
}

// ---- Status ----

async function refresh() {
  if (busy) return;
  const answer = await ask({ type: "status" });
  if (answer?.status) {
    lastStatus = answer.status;
    render(answer.status, "");
    if (!agentsInfo && answer.status.welcome) loadAgents();
    return;
  }
  // The worker did not answer: show the copy it saved last, if any.
  let saved = null;
  try {
    saved = (await chrome.storage.session.get("status")).status ?? null;
  } catch {
    // no saved copy
  }
  const why = answer?.error ? `The service worker did not answer: ${answer.error}` : "The service worker did not answer.";
  render(saved ?? lastStatus, saved ? `${why} Showing the state it saved last.` : why);
}

async function loadAgents() {
  const answer = await serviceCall("popup.status");
  if (answer.result) agentsInfo = agentsView(answer.result);
  const v = agentsInfo;
  $("agents").hidden = !v;
  if (!v) return;
  $("agents-endpoint").replaceChildren(...pathNodes(document, v.endpoint));
  $("agents-token").replaceChildren(...pathNodes(document, v.tokenFile));
  showHint($("agents-hint"), v.hint);
}

async function act(msg) {
  busy = true;
  try {
    const answer = await ask(msg);
    if (answer?.status) lastStatus = answer.status;
    render(lastStatus, answer?.error ? `The service worker refused: ${answer.error}` : "");
  } finally {
    busy = false;
  }
}

async function ask(msg) {
  try {
    return (await chrome.runtime.sendMessage(msg)) ?? null;
  } catch (err) {
    return { error: err.message };
  }
}

function render(status, note) {
  const view = describeStatus(status, Date.now());
  show($("worker-note"), note);

  const stopped = Boolean(status?.automationStopped);
  const sw = $("automation");
  sw.setAttribute("aria-checked", String(!stopped));
  $("automation-label").textContent = stopped ? "Automation stopped" : "Automation on";
  $("automation-note").hidden = !stopped;
  setDot("automation-dot", view.automation.dot);
  $("automation-state").textContent = view.automation.state;
  showHint($("automation-hint"), view.automation.hint ?? "");

  setDot("native-dot", view.native.dot);
  $("native-state").textContent = view.native.state;
  show($("native-error"), view.native.error);
  showHint($("native-hint"), view.native.hint);
  show($("native-retry"), view.native.retry);

  setDot("relay-dot", view.relay.dot);
  $("relay-state").textContent = view.relay.state;
  show($("relay-error"), view.relay.error);
  showHint($("relay-hint"), view.relay.hint);
  show($("relay-detail"), view.relay.detail);

  $("relay-kv").hidden = !view.welcome && !view.relay.socket;
  $("relay-socket-row").hidden = !view.relay.socket;
  if ($("relay-socket").textContent !== (view.relay.socket ?? "")) $("relay-socket").replaceChildren(...pathNodes(document, view.relay.socket));
  $("welcome").hidden = !view.welcome;
  if (view.welcome) {
    $("welcome-browser").textContent = view.welcome.browser;
    $("welcome-version").textContent = view.welcome.version;
    $("welcome-pid").textContent = view.welcome.pid;
  }

  const protocolError = status?.protocolError
    ? `Last protocol error (${new Date(status.protocolErrorAt).toLocaleTimeString()}): ${status.protocolError}`
    : "";
  show($("protocol-error"), protocolError);

  renderAttached(view.attached);
}

let attachedKey = "";

function renderAttached(tabs) {
  // Rebuild the list only when it changed, so a click never lands on a button being replaced.
  const key = JSON.stringify(tabs.map((t) => [t.id, t.title, t.url]));
  if (key === attachedKey) return;
  attachedKey = key;
  const list = $("attached");
  list.replaceChildren(
    ...tabs.map((tab) => {
      const li = document.createElement("li");
      const text = document.createElement("div");
      text.className = "tab";
      const title = document.createElement("div");
      title.className = "title";
      title.textContent = tab.title || "(untitled)";
      title.title = tab.title || "";
      const url = document.createElement("div");
      url.className = "url muted small";
      url.textContent = tab.url || `tab ${tab.id}`;
      url.title = tab.url || "";
      text.append(title, url);
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Detach";
      button.addEventListener("click", () => act({ type: "detach", tabId: tab.id }));
      li.append(text, button);
      return li;
    }),
  );
  $("attached-count").textContent = tabs.length ? `(${tabs.length})` : "";
  $("attached-none").hidden = tabs.length > 0;
}

function setDot(id, colour) {
  $(id).className = `dot ${colour}`;
}

function show(el, text) {
  el.hidden = !text;
  el.textContent = text || "";
}

// showHint renders a hint, with `backticked` parts as code.
function showHint(el, text) {
  el.hidden = !text;
  el.replaceChildren(
    ...String(text || "")
      .split("`")
      .map((part, i) => {
        if (i % 2 === 0) return document.createTextNode(part);
        const code = document.createElement("code");
        code.textContent = part;
        return code;
      }),
  );
}
