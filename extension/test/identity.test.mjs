import assert from "node:assert/strict";
import { test } from "node:test";
import { KEY_NAME, browserKey, cachedBrowserKey } from "../identity.js";

// A fake chrome.storage.local.
function fakeStorage(initial = {}) {
  const s = {
    data: { ...initial },
    sets: 0,
    async get(name) {
      return name in s.data ? { [name]: s.data[name] } : {};
    },
    async set(items) {
      s.sets++;
      Object.assign(s.data, items);
    },
  };
  return s;
}

const bytes = (v) => () => new Uint8Array(16).fill(v);

test("the first call creates a 128-bit hex key and stores it; later calls return the stored one", async () => {
  const storage = fakeStorage();
  const key = await browserKey(storage, bytes(0xab));
  assert.equal(key, "ab".repeat(16));
  assert.equal(storage.data[KEY_NAME], key);
  assert.equal(await browserKey(storage, bytes(0x01)), key, "the stored key wins over fresh randomness");
  assert.equal(storage.sets, 1);
});

test("a stored value that is not a key is replaced", async () => {
  for (const bad of [42, "", "b1", "AB".repeat(16), "ab".repeat(17), null]) {
    const storage = fakeStorage({ [KEY_NAME]: bad });
    assert.equal(await browserKey(storage, bytes(0x0f)), "0f".repeat(16), JSON.stringify(bad));
  }
});

test("real randomness gives distinct keys", async () => {
  const a = await browserKey(fakeStorage());
  const b = await browserKey(fakeStorage());
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, b);
});

test("cachedBrowserKey reads storage once per worker life, and retries after a failure", async () => {
  const storage = fakeStorage();
  let gets = 0;
  const get = storage.get;
  storage.get = async (name) => {
    gets++;
    if (gets === 1) throw new Error("storage unavailable");
    return get(name);
  };
  const key = cachedBrowserKey(storage, bytes(0x22));
  await assert.rejects(key(), /storage unavailable/);
  const [a, b] = await Promise.all([key(), key()]);
  assert.equal(a, "22".repeat(16));
  assert.equal(b, a);
  assert.equal(gets, 2);
});
