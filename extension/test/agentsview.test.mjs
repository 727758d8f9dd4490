import assert from "node:assert/strict";
import { test } from "node:test";
import { agentCards, ago, callWords, clock, describeAgents, disconnectParams, processShort, processWords, replacesWords, revokedWarning, scopeWords, secondsLeft } from "../agentsview.js";

test("a pending request names the agent, its scopes in words and the process", () => {
  const now = Date.parse("2026-12-01T10:00:00Z");
  const v = describeAgents(
    {
      pending: [{ id: "ab", name: "claude", scopes: ["read", "cdp"], process: { pid: 42, exe: "/usr/bin/node" }, expires: "2026-12-01T10:01:30Z" }],
      agents: [{ name: "bot", scopes: ["space"], connected: 2 }, { name: "old", scopes: ["read"], revoked: true, connected: 0 }],
      calls: [],
    },
    now,
  );
  assert.deepEqual(v.pending, [
    { id: "ab", name: "claude", scopes: ["read pages (no input, no navigation)", "raw DevTools protocol"], process: "/usr/bin/node (pid 42)", left: 90, replaces: "" },
  ]);
  assert.deepEqual(v.agents.map((a) => a.state), ["connected (2)", "revoked"]);
});

test("a request under a paired name says it replaces that pairing", () => {
  const r = { name: "claude", replaces: { name: "claude", scopes: ["read"], paired: "2026-11-30T09:00:00Z" } };
  assert.equal(replacesWords(r), "claude is paired already (read, since 2026-11-30): approving replaces that pairing and revokes its token");
  assert.equal(replacesWords({ name: "x" }), "");
});

test("the audit log's pairing lines show the scopes and the process", () => {
  const w = callWords({ agent: "claude", method: "pair.request", scopes: ["space"], process: "/usr/bin/node (pid 4, uid 1000)", result: "approved" });
  assert.equal(w.what, "pair.request scopes space from /usr/bin/node (pid 4, uid 1000)");
});

test("an unknown process and scope are said so", () => {
  assert.match(processWords(null), /unknown process/);
  assert.match(processWords({ uid: 1001, otherUser: true }), /ANOTHER OS USER \(uid 1001\)/);
  assert.deepEqual(scopeWords(["root"]), ["unknown scope root"]);
  assert.equal(secondsLeft("garbage", 0), 0);
  assert.equal(secondsLeft("2026-12-01T10:00:00Z", Date.parse("2026-12-01T11:00:00Z")), 0);
});

test("calls show newest first, with lengths and never a value", () => {
  const v = describeAgents(
    {
      calls: [
        { time: "2026-12-01T10:00:01.5Z", agent: "bot", method: "fill", tab: 7, origin: "https://example.com", target: "#q", length: 7, result: "ok" },
        { time: "2026-12-01T10:00:02Z", agent: "bot", method: "press", tab: 7, key: "Enter", result: "forbidden_origin_scope" },
      ],
    },
    0,
  );
  assert.equal(v.calls[0].what, "press key Enter");
  assert.equal(v.calls[0].ok, false);
  assert.equal(v.calls[1].what, "fill #q (7 chars)");
  assert.equal(v.calls[1].where, "tab 7 https://example.com");
  assert.equal(v.calls[1].time, "10:00:01");
  assert.equal(callWords({ method: "goto", url: "https://a.example/x", length: 0, result: "ok" }).what, "goto (0 chars) https://a.example/x");
});

// The Agents tab's cards (agentCards), read in UTC so the clock is the same everywhere.
process.env.TZ = "UTC";

const panel = {
  agents: [
    { name: "claude", scopes: ["space", "read"], connected: 1 },
    { name: "gone", scopes: ["read"], revoked: true, connected: 0 },
  ],
  pending: [],
  calls: [],
  connections: [
    { id: 7, agent: "claude", paired: true, since: "2026-12-01T10:00:00Z", process: { pid: 42, exe: "/usr/bin/node" }, calls: [] },
    {
      id: 9,
      agent: "",
      paired: false,
      since: "2026-12-01T10:00:00Z",
      calls: [
        { method: "click", target: "#late", tab: 5, since: "2026-12-01T10:00:08Z" },
        { method: "wait", target: "text=never", since: "2026-12-01T10:00:01Z" },
      ],
    },
    { id: 10, agent: "bob", paired: false, since: "2026-12-01T10:00:00Z", calls: [] },
  ],
  recent: {
    owner: [{ time: "2026-12-01T09:59:00Z", agent: "owner", method: "goto", url: "https://a.example/", tab: 5, result: "ok" }],
    bob: Array.from({ length: 25 }, (_, i) => ({ time: `2026-12-01T09:00:${String(i).padStart(2, "0")}Z`, agent: "bob", method: "click", target: `#b${i}`, tab: 3, result: i === 24 ? "user_in_control" : "ok" })),
    person: [{ time: "2026-12-01T09:59:00Z", agent: "person", method: "snapshot", tab: 1, result: "ok" }],
  },
};
const spacesRes = {
  spaces: [
    { id: "s1", agent: "bob", title: "🤖 bob: book", color: "blue", state: "person", tabs: [3, 4] },
    { id: "s2", agent: "claude", title: "🤖 claude", color: "red", state: "working", tabs: [] },
  ],
};

test("agentCards: one card per agent, sorted, you (CLI) last, the person's popup calls left out", () => {
  const cards = agentCards(panel, spacesRes, new Map([[3, "Bob's page"]]), Date.parse("2026-12-01T10:00:10Z"));
  assert.deepEqual(
    cards.map((c) => [c.key, c.name, c.kind, c.scopes, c.state, c.canDisconnect, c.canRevoke]),
    [
      ["bob", "bob", "owner token", "all", "connected", true, false],
      ["claude", "claude", "paired", "space, read", "connected", true, true],
      ["gone", "gone", "paired, revoked", "read", "not connected", false, false],
      ["", "you (CLI)", "owner token", "all", "connected", true, false],
    ],
  );
  const [bob, claude, , you] = cards;
  assert.deepEqual(claude.processes, [{ text: "node (pid 42)", full: "/usr/bin/node (pid 42)" }]);
  assert.deepEqual(
    bob.spaces.map((s) => [s.id, s.title, s.color, s.stateLabel, s.button, s.method, s.tabs, s.tabsText]),
    [["s1", "🤖 bob: book", "blue", "you have it", "Hand back", "spaces.handBack", [{ id: 3, title: "Bob's page" }, { id: 4, title: "tab 4" }], "Bob's page · tab 4"]],
  );
  assert.equal(claude.spaces[0].button, "Take over");
  assert.equal(claude.spaces[0].tabsText, "no tab");
  assert.deepEqual(you.doing, [
    { what: "wait text=never", for: "9 s", full: "wait text=never · since 10:00:01" },
    { what: "click #late", for: "2 s", full: "click #late · tab 5 · since 10:00:08" },
  ]);
  assert.equal(bob.calls.length, 20, "the last 20 calls");
  assert.deepEqual(bob.calls[0], { time: "09:00:24", what: "click #b24", where: "", result: "user_in_control", ok: false, full: "09:00:24 click #b24 · tab 3 → user_in_control" });
  assert.equal(bob.calls[19].what, "click #b5");
  assert.deepEqual(you.calls.map((c) => c.what), ["goto https://a.example/"]);
  assert.equal(you.calls[0].full, "09:59:00 goto https://a.example/ · tab 5 → ok");
  assert.deepEqual(disconnectParams(you), { connections: [9] });
  assert.deepEqual(disconnectParams(bob), { agent: "bob" });
});

test("a space the person has says which of its tabs ran the agent's own script; one the agent has does not", () => {
  const res = {
    spaces: [
      { id: "s1", agent: "bob", title: "✋ bob", color: "blue", state: "person", tabs: [3, 4, 5], scripted: [4, 5, 9], closeFirst: [3, 7, "x"] },
      { id: "s2", agent: "eve", title: "🤖 eve", color: "red", state: "working", tabs: [6], scripted: [6], closeFirst: [6] },
    ],
  };
  const cards = agentCards({}, res, new Map([[4, "Sign in"], [7, "Helper"]]), 0);
  const bob = cards.find((c) => c.key === "bob");
  const eve = cards.find((c) => c.key === "eve");
  assert.deepEqual(bob.spaces[0].scripted, [
    { id: 4, title: "Sign in", warning: "bob ran its own script in “Sign in”: it can read what you type there. Reload the page first." },
    { id: 5, title: "tab 5", warning: "bob ran its own script in “tab 5”: it can read what you type there. Reload the page first." },
  ]);
  // The linked tabs to close first, the space's or not.
  const linked = (title) =>
    `A page bob's script ran in opened “${title}”, or was opened by it: the script may run there too, and put itself back into that page after a reload. Close this tab first.`;
  assert.deepEqual(bob.spaces[0].closeFirst, [
    { id: 3, title: "tab 3", warning: linked("tab 3") },
    { id: 7, title: "Helper", warning: linked("Helper") },
  ]);
  assert.deepEqual(eve.spaces[0].scripted, []);
  assert.deepEqual(eve.spaces[0].closeFirst, []);
  assert.deepEqual(agentCards({}, spacesRes, new Map(), 0)[0].spaces[0].scripted, [], "no scripted member: none");
});

test("agentCards survives a missing or odd answer", () => {
  assert.deepEqual(agentCards(null, null, null, 0), []);
  assert.deepEqual(agentCards({ connections: [{ id: 1, agent: "x", calls: [{ method: "m", since: "bad" }] }] }, { spaces: [] }, new Map(), 0)[0].doing, [
    { what: "m", for: "", full: "m" },
  ]);
});

test("ago and clock", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  assert.equal(ago("2026-12-01T11:59:59Z", now), "1 s");
  assert.equal(ago("2026-12-01T11:55:00Z", now), "5 min");
  assert.equal(ago("2026-12-01T09:00:00Z", now), "3 h");
  assert.equal(ago("2026-12-01T12:00:05Z", now), "0 s");
  assert.equal(clock("2026-12-01T08:07:06Z"), "08:07:06");
  assert.equal(clock("nope"), "");
});

test("no card says a word twice: the owner token's scopes do not repeat its kind", () => {
  const cards = agentCards(panel, spacesRes, new Map(), Date.parse("2026-12-01T10:00:10Z"));
  for (const c of cards) {
    const meta = [c.kind, `scopes: ${c.scopes}`, ...c.processes.map((p) => p.text)].join(" · ");
    const words = meta.toLowerCase().match(/[a-z]+/g);
    const twice = words.filter((w, i) => words.indexOf(w) !== i && !["pid"].includes(w));
    assert.deepEqual(twice, [], `${c.name}: ${meta}`);
  }
  const two = agentCards({ connections: [{ id: 1, agent: "x", calls: [] }, { id: 2, agent: "x", calls: [] }] }, null, null, 0);
  assert.equal(two[0].state, "connected (2)");
});

test("processShort names the program, in full on hover (processWords)", () => {
  assert.equal(processShort({ pid: 7, exe: "/home/ada/.local/bin/claude" }), "claude (pid 7)");
  assert.equal(processShort({ pid: 7, exe: "C:\\Tools\\agent.exe" }), "agent.exe (pid 7)");
  assert.equal(processShort({ pid: 7 }), "? (pid 7)");
  assert.match(processShort({ uid: 1001, otherUser: true }), /ANOTHER OS USER/);
  assert.match(processShort(null), /unknown process/);
});

test("after a revocation, the pages an agent's script still runs in: the tabs to close first, then to reload", () => {
  const titles = new Map([[7, "Bank"]]);
  assert.equal(revokedWarning("dave", { name: "dave", cut: 1 }, titles), "");
  assert.equal(
    revokedWarning("dave", { scripted: [{ browser: "b1", tab: 7 }], closeFirst: [{ browser: "b1", tab: 9 }, { tab: "x" }] }, titles),
    "dave is revoked, but an agent's own script still runs in “tab 9”, “Bank”, and can read what you type there. " +
      "Close “tab 9” first (a page the script ran in opened it, or was opened by it). Reload “Bank” before typing there.",
  );
  assert.equal(
    revokedWarning("dave", { scripted: [{ browser: "b1", tab: 7 }] }, titles),
    "dave is revoked, but an agent's own script still runs in “Bank”, and can read what you type there. Reload “Bank” before typing there.",
  );
});
