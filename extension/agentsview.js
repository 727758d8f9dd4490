// The popup's agents panel in plain words: pairing requests waiting for the person, the paired
// agents, and their last calls (popup.agents, PROTOCOL.md §3.7). Pure functions, so they run
// under node --test; agentspanel.js puts them in the page.

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
  const where = c.tab ? `tab ${c.tab}${c.origin ? ` ${c.origin}` : ""}` : "";
  const time = typeof c.time === "string" ? c.time.slice(11, 19) : "";
  return { time, agent: c.agent ?? "", what, where, ok: c.result === "ok", result: c.result ?? "" };
}

/** describeAgents turns popup.agents' result into what the panel shows. */
export function describeAgents(res, now) {
  const pending = (res?.pending ?? []).map((r) => ({
    id: r.id,
    name: r.name,
    scopes: scopeWords(r.scopes),
    process: processWords(r.process),
    left: secondsLeft(r.expires, now),
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
