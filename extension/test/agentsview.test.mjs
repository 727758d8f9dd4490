import assert from "node:assert/strict";
import { test } from "node:test";
import { callWords, describeAgents, processWords, scopeWords, secondsLeft } from "../agentsview.js";

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
    { id: "ab", name: "claude", scopes: ["read pages (no input, no navigation)", "raw DevTools protocol"], process: "/usr/bin/node (pid 42)", left: 90 },
  ]);
  assert.deepEqual(v.agents.map((a) => a.state), ["connected (2)", "revoked"]);
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
