// The popup: asks the worker for its status every second and shows it.

import { describeStatus } from "./statusview.js";

const $ = (id) => document.getElementById(id);
let lastStatus = null;
let busy = false;

$("extension-id").textContent = chrome.runtime.id;
$("version").textContent = `v${chrome.runtime.getManifest().version}`;
$("reconnect").addEventListener("click", () => act({ type: "reconnect" }));

refresh();
setInterval(refresh, 1000);

async function refresh() {
  if (busy) return;
  const answer = await ask({ type: "status" });
  if (answer?.status) {
    lastStatus = answer.status;
    render(answer.status, "");
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
