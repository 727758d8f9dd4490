// The popup's agents panel in plain words: pairing requests waiting for the person, the paired
// agents, and their last calls (popup.agents, PROTOCOL.md §3.7). Pure functions, so they run
// under node --test; agentspanel.js puts them in the page.

import { baseName } from "./pathview.js";

const SCOPE_WORDS = {
  space: "act in its own spaces",
  read: "read pages (no input, no navigation)",
  "all-tabs": "every tab, not only its spaces",
  cdp: "raw DevTools protocol",
};

/** scopeWords explains a list of scopes to the person deciding. */
export function scopeWords(scopes) {
  return (scopes ?? []).map((s) => SCOPE_WORDS[s] ?? `unknown scope ${s}`);
}

/** processWords names the process that asked, as far as the OS told. */
export function processWords(p) {
  if (p?.otherUser) return `a process of ANOTHER OS USER (uid ${p.uid}): deny unless you expect it`;
  if (!p || !p.pid) return "an unknown process (the OS did not say which)";
  return `${p.exe || "?"} (pid ${p.pid})`;
}

/**
 * processShort is processWords in fewer words for an agent's card: the program's name and pid
 * (the card shows processWords in full on hover; a pairing request shows it in full).
 */
export function processShort(p) {
  if (p?.otherUser || !p?.pid) return processWords(p);
  return `${baseName(p.exe) || "?"} (pid ${p.pid})`;
}

/** secondsLeft is how long a request still waits, in whole seconds (never below 0). */
export function secondsLeft(expires, now) {
  const t = Date.parse(expires);
  return Number.isNaN(t) ? 0 : Math.max(0, Math.round((t - now) / 1000));
}

/** callWords is one audit line for the panel: what, where, how it ended. */
export function callWords(c) {
  let what = c.method;
  if (c.target) what += ` ${c.target}`;
  if (c.key) what += ` key ${c.key}`;
  if (c.length !== undefined && c.length !== null) what += ` (${c.length} chars)`;
  if (c.url) what += ` ${c.url}`;
  if (c.scopes?.length) what += ` scopes ${c.scopes.join(",")}`;
  if (c.process) what += ` from ${c.process}`;
  const where = c.tab ? `tab ${c.tab}${c.origin ? ` ${c.origin}` : ""}` : "";
  const time = typeof c.time === "string" ? c.time.slice(11, 19) : "";
  return { time, agent: c.agent ?? "", what, where, ok: c.result === "ok", result: c.result ?? "" };
}

/**
 * replacesWords warns that approving a request replaces a live pairing of the same name ("" when
 * it does not): the person must see it before the Replace button revokes that pairing's token.
 */
export function replacesWords(r) {
  const old = r?.replaces;
  if (!old) return "";
  const since = typeof old.paired === "string" ? old.paired.slice(0, 10) : "";
  const scopes = (old.scopes ?? []).join(", ") || "no scope";
  return `${r.name} is paired already (${scopes}${since ? `, since ${since}` : ""}): approving replaces that pairing and revokes its token`;
}

/** describeAgents turns popup.agents' result into what the panel shows. */
export function describeAgents(res, now) {
  const pending = (res?.pending ?? []).map((r) => ({
    id: r.id,
    name: r.name,
    scopes: scopeWords(r.scopes),
    process: processWords(r.process),
    left: secondsLeft(r.expires, now),
    replaces: replacesWords(r),
  }));
  const agents = (res?.agents ?? []).map((a) => ({
    name: a.name,
    scopes: (a.scopes ?? []).join(", "),
    state: a.revoked ? "revoked" : a.connected > 0 ? `connected (${a.connected})` : "paired",
    revoked: Boolean(a.revoked),
  }));
  const calls = (res?.calls ?? []).slice().reverse().map(callWords); // newest first
  return { pending, agents, calls };
}

// ---- the Agents tab: one card per agent (popup.agents with perAgent, spaces.list, tab titles) ----

/** YOU is the card key of the owner token's connections without a name: the person's own CLI. */
export const YOU = "";

const pad = (n) => String(n).padStart(2, "0");

/** clock is a time of day in the person's time zone, HH:MM:SS ("" when unknown). */
export function clock(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** ago says how long since iso, in words short enough for a line ("3 s", "2 min", "1 h"). */
export function ago(iso, now) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h`;
}

// The scopes of the owner token (its kind says "owner token": its scopes do not say it again).
const EVERYTHING = "all";

const SPACE_STATES = { working: "agent working", person: "you have it", idle: "agent idle" };

// keyOf is the card an audit name or connection name belongs to ("owner" is the owner token
// without a name: the person's CLI).
const keyOf = (name) => (name === "owner" ? YOU : (name ?? YOU));

/**
 * agentCards turns popup.agents (with perAgent), spaces.list ({all: true}) and the browser's tab
 * titles (id → title) into one card per agent, sorted by name with "you (CLI)" last. The person's
 * popup calls ("person") are not an agent's and get no card.
 */
export function agentCards(res, spacesResult, titles, now) {
  const cards = new Map();
  const card = (key) => {
    if (!cards.has(key)) {
      cards.set(key, {
        key,
        name: key === YOU ? "you (CLI)" : key,
        kind: key === YOU ? "owner token" : "",
        scopes: key === YOU ? EVERYTHING : "",
        revoked: false,
        connections: [],
        processes: [],
        spaces: [],
        doing: [],
        calls: [],
      });
    }
    return cards.get(key);
  };
  for (const a of res?.agents ?? []) {
    const c = card(a.name);
    c.kind = a.revoked ? "paired, revoked" : "paired";
    c.paired = !a.revoked;
    c.revoked = Boolean(a.revoked);
    c.scopes = (a.scopes ?? []).join(", ");
  }
  for (const conn of res?.connections ?? []) {
    const c = card(keyOf(conn.agent));
    if (!c.kind) c.kind = conn.paired ? "paired" : "owner token";
    if (!c.scopes && !conn.paired) c.scopes = EVERYTHING;
    c.connections.push(conn.id);
    if (conn.process?.pid) {
      const p = { text: processShort(conn.process), full: processWords(conn.process) };
      if (!c.processes.some((q) => q.full === p.full)) c.processes.push(p);
    }
    for (const call of conn.calls ?? []) {
      const what = `${call.method}${call.target ? ` ${call.target}` : ""}`;
      const since = clock(call.since);
      const took = ago(call.since, now);
      c.doing.push({
        what,
        for: took,
        full: `${what}${call.tab ? ` · tab ${call.tab}` : ""}${since ? ` · since ${since}` : ""}`,
        at: Date.parse(call.since) || 0,
      });
    }
  }
  for (const sp of spacesResult?.spaces ?? []) {
    const c = card(keyOf(sp.agent));
    const taken = sp.state === "person";
    const titleOf = (id) => titles?.get?.(id) ?? titles?.[id] ?? `tab ${id}`;
    const tabs = (sp.tabs ?? []).map((id) => ({ id, title: titleOf(id) }));
    const agent = sp.agent ?? "The agent";
    // Once the person has it: the tabs whose page ran the agent's own
    // script, which can read what the person types there until a reload,
    // and first the tabs linked to them (one opened the other, maybe
    // outside the space), which a reload does not make safe: to close.
    const scripted = taken ? tabs.filter((t) => (sp.scripted ?? []).includes(t.id)) : [];
    const closeFirst = taken ? (sp.closeFirst ?? []).filter((id) => typeof id === "number") : [];
    c.spaces.push({
      id: String(sp.id ?? ""),
      title: sp.title || `${sp.agent ?? "?"}${sp.task ? `: ${sp.task}` : ""}`,
      color: sp.color ?? "grey",
      state: sp.state ?? "",
      stateLabel: SPACE_STATES[sp.state] ?? sp.state ?? "",
      tabs,
      tabsText: tabs.length ? tabs.map((t) => t.title).join(" · ") : "no tab",
      closeFirst: closeFirst.map((id) => ({
        id,
        title: titleOf(id),
        warning: `A page ${agent}'s script ran in opened “${titleOf(id)}”, or was opened by it: the script may run there too, and put itself back into that page after a reload. Close this tab first.`,
      })),
      scripted: scripted.map((t) => ({
        id: t.id,
        title: t.title,
        warning: `${agent} ran its own script in “${t.title}”: it can read what you type there. Reload the page first.`,
      })),
      button: taken ? "Hand back" : "Take over",
      method: taken ? "spaces.handBack" : "spaces.takeOver",
    });
  }
  for (const [name, calls] of Object.entries(res?.recent ?? {})) {
    if (name === "person") continue;
    const c = card(keyOf(name));
    c.calls = calls
      .slice(-20)
      .reverse()
      .map((e) => {
        const w = callWords(e);
        const time = clock(e.time);
        // The line shows the origin; the tab's number (meaningless to a person) only on hover.
        const full = `${time} ${w.what}${w.where ? ` · ${w.where}` : ""} → ${w.result}`;
        return { time, what: w.what, where: e.origin ?? "", result: w.result, ok: w.ok, full };
      });
  }
  const out = [...cards.values()];
  for (const c of out) {
    c.doing.sort((x, y) => x.at - y.at);
    for (const d of c.doing) delete d.at;
    c.connected = c.connections.length;
    c.kind ||= "owner token"; // known only from its calls or spaces: not paired
    c.scopes ||= EVERYTHING;
    c.state = c.connected > 1 ? `connected (${c.connected})` : c.connected ? "connected" : "not connected";
    c.canDisconnect = c.connected > 0;
    c.canRevoke = Boolean(c.paired);
  }
  out.sort((x, y) => (x.key === YOU) - (y.key === YOU) || x.key.localeCompare(y.key));
  return out;
}

/** disconnectParams are popup.disconnect's params for a card: by name, or the connections of "you". */
export function disconnectParams(card) {
  return card.key === YOU ? { connections: card.connections } : { agent: card.key };
}

/**
 * revokedWarning is what the person is told after revoking an agent when an agent's own script
 * still runs in pages of theirs (agents.revoke's scripted and closeFirst: {browser, tab}); ""
 * when none does. titles maps a tab ID to its title.
 */
export function revokedWarning(name, result, titles) {
  const named = (ts) =>
    (Array.isArray(ts) ? ts : [])
      .filter((t) => typeof t?.tab === "number")
      .map((t) => `“${titles?.get?.(t.tab) ?? titles?.[t.tab] ?? `tab ${t.tab}`}”`);
  const reload = named(result?.scripted);
  const close = named(result?.closeFirst);
  if (!reload.length && !close.length) return "";
  let text = `${name} is revoked, but an agent's own script still runs in ${[...close, ...reload].join(", ")}, and can read what you type there.`;
  if (close.length) text += ` Close ${close.join(", ")} first (a page the script ran in opened it, or was opened by it).`;
  if (reload.length) text += ` Reload ${reload.join(", ")} before typing there.`;
  return text;
}
