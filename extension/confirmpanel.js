// The popup's confirmations (README "Confirmations", PROTOCOL.md §3.7.2): the acts of agents on this
// browser's tabs that wait for the person's yes, above every panel — the agent, the act in words, a
// picture of the element with its box drawn, and Allow once / Always for this agent on this origin /
// Deny (popup.confirm.list, popup.confirm.answer over the popup channel). It asks every second while
// the popup is open, and at once on the service's confirm notice.

import { call, el } from "./popupdom.js";

const $ = (id) => document.getElementById(id);

function showError(text) {
  const note = $("confirm-error");
  note.textContent = text;
  note.hidden = !text;
}

let shownKey = "";
let refreshing = false;

async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    const answer = await call("popup.confirm.list");
    if (answer.error) {
      // An older service knows no confirmations: nothing to show.
      if (answer.error.name !== "method_not_found") showError(`Confirmations: ${answer.error.message}`);
      return;
    }
    render(answer.result?.pending ?? []);
  } finally {
    refreshing = false;
  }
}

function render(pending) {
  $("confirmations").hidden = pending.length === 0;
  const list = $("confirm-list");
  const key = JSON.stringify(pending.map((q) => q.id));
  if (key === shownKey) {
    for (const q of pending) {
      const left = list.querySelector(`li[data-confirm="${CSS.escape(q.id)}"] .left`);
      if (left) left.textContent = `${Math.ceil(q.expiresMs / 1000)} s left`;
    }
    return;
  }
  shownKey = key;
  list.replaceChildren(
    ...pending.map((q) => {
      const li = el("li", "ask");
      li.dataset.confirm = q.id;
      const head = el("div", "line");
      head.append(el("strong", "agent", q.agent), el("span", "muted", " asks for your yes"), el("span", "left small muted", `${Math.ceil(q.expiresMs / 1000)} s left`));
      li.append(head, el("div", "action", q.action));
      if (q.picture) {
        const img = el("img");
        img.src = `data:image/png;base64,${q.picture}`;
        img.alt = `the element: ${q.action}`;
        li.append(img);
      }
      const buttons = el("div", "buttons");
      const b = (text, cls, params) => {
        const x = el("button", cls, text);
        x.type = "button";
        x.addEventListener("click", () => answer(li, { id: q.id, ...params }));
        return x;
      };
      buttons.append(
        b("Allow once", "allow", { allow: true }),
        b("Always for this agent on this origin", "always", { allow: true, always: true }),
        b("Deny", "deny", { allow: false }),
      );
      li.append(buttons);
      return li;
    }),
  );
}

async function answer(li, params) {
  for (const b of li.querySelectorAll("button")) b.disabled = true;
  const res = await call("popup.confirm.answer", params);
  showError(res.error ? `Could not answer: ${res.error.message}` : "");
  refresh();
}

chrome.runtime.onMessage.addListener((msg) => {
  if (msg?.type === "notice" && msg.topic === "confirm") refresh();
});
refresh();
setInterval(refresh, 1000);
