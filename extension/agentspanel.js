// The popup's agents panel: pairing requests with Approve / Deny, the paired agents, and their
// last calls. It asks the service over the popup channel (popup.agents, popup.pairing.decide),
// and refreshes when the service pushes a pairing notice.

import { describeAgents } from "./agentsview.js";

const $ = (id) => document.getElementById(id);

async function call(method, params) {
  try {
    return (await chrome.runtime.sendMessage({ type: "service.call", method, params })) ?? { error: { message: "no answer" } };
  } catch (err) {
    return { error: { message: err.message } };
  }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function refresh() {
  const answer = await call("popup.agents", { limit: 10 });
  const note = $("agents-error");
  if (answer.error) {
    note.textContent = `Agents: ${answer.error.message}`;
    note.hidden = false;
    return;
  }
  note.hidden = true;
  render(describeAgents(answer.result, Date.now()));
}

function render(view) {
  const pending = $("pairing-requests");
  pending.replaceChildren();
  for (const r of view.pending) {
    const li = el("li", "request");
    li.append(el("div", "line", ""), el("div", "small", `asks for: ${r.scopes.join("; ")}`), el("div", "small muted", `from ${r.process} · ${r.left} s left`));
    li.firstChild.append(el("strong", "", r.name), el("span", "muted", " wants to drive this browser"));
    const buttons = el("div", "buttons");
    const approve = el("button", "approve", "Approve");
    const deny = el("button", "deny", "Deny");
    approve.type = deny.type = "button";
    approve.addEventListener("click", () => decide(r.id, true, li));
    deny.addEventListener("click", () => decide(r.id, false, li));
    buttons.append(approve, deny);
    li.append(buttons);
    pending.append(li);
  }
  $("pairing-none").hidden = view.pending.length > 0;

  const agents = $("paired-agents");
  agents.replaceChildren();
  for (const a of view.agents) {
    const li = el("li", a.revoked ? "muted" : "");
    li.append(el("strong", "", a.name), el("span", "muted small", ` ${a.scopes} · ${a.state}`));
    agents.append(li);
  }
  $("agents-none").hidden = view.agents.length > 0;

  const calls = $("agent-calls");
  calls.replaceChildren();
  for (const c of view.calls) {
    const li = el("li", c.ok ? "small" : "small failed");
    li.textContent = `${c.time} ${c.agent} ${c.what} ${c.where}${c.ok ? "" : ` → ${c.result}`}`;
    calls.append(li);
  }
  $("calls-none").hidden = view.calls.length > 0;
}

async function decide(id, approve, li) {
  for (const b of li.querySelectorAll("button")) b.disabled = true;
  const answer = await call("popup.pairing.decide", { id, approve });
  if (answer.error) {
    $("agents-error").textContent = `Could not answer: ${answer.error.message}`;
    $("agents-error").hidden = false;
  }
  refresh();
}

chrome.runtime.onMessage.addListener((msg) => {
  if (msg?.type === "notice" && msg.topic === "pairing") refresh();
});
refresh();
setInterval(refresh, 5000);
