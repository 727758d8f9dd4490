import assert from "node:assert/strict";
import { test } from "node:test";
import { spaceRows } from "../spacesview.js";

test("spaceRows: a working space offers Take over, a taken-over one Hand back", () => {
  const rows = spaceRows({
    spaces: [
      { id: "s1", agent: "alice", task: "book a flight", state: "working", color: "blue", tabs: [1, 2] },
      { id: "s2", agent: "bob", state: "person", color: "red", tabs: [3] },
      { id: "s3", agent: "carol", state: "idle", color: "green", tabs: [] },
    ],
  });
  assert.deepEqual(
    rows.map((r) => [r.id, r.title, r.detail, r.button, r.method]),
    [
      ["s1", "alice: book a flight", "agent working · 2 tabs", "Take over", "spaces.takeOver"],
      ["s2", "bob", "you have it · 1 tab", "Hand back", "spaces.handBack"],
      ["s3", "carol", "agent idle · 0 tabs", "Take over", "spaces.takeOver"],
    ],
  );
});

test("spaceRows survives a missing or odd result", () => {
  for (const r of [null, undefined, {}, { spaces: "x" }]) assert.deepEqual(spaceRows(r), []);
});
