// The browser's stable identity: a random key kept in chrome.storage.local, sent in every hello,
// so the service gives this browser profile the same browser ID across relay reconnects, worker
// restarts, browser restarts and service restarts (PROTOCOL.md §2.3).

/** KEY_NAME is the chrome.storage.local key under which the identity is kept. */
export const KEY_NAME = "browserKey";

const KEY_PATTERN = /^[0-9a-f]{32}$/;

/**
 * browserKey returns this profile's key, creating and storing it on first use: 32 hex digits
 * (128 random bits). storage is chrome.storage.local (or a fake with get/set returning promises);
 * random(n) returns n random bytes. A stored value that is not a key is replaced.
 */
export async function browserKey(storage, random = randomBytes) {
  const stored = (await storage.get(KEY_NAME))?.[KEY_NAME];
  if (typeof stored === "string" && KEY_PATTERN.test(stored)) return stored;
  const key = [...random(16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  await storage.set({ [KEY_NAME]: key });
  return key;
}

/** cachedBrowserKey returns a function that reads (or creates) the key once per worker life. */
export function cachedBrowserKey(storage, random = randomBytes) {
  let pending = null;
  return () => {
    pending ??= browserKey(storage, random).catch((err) => {
      pending = null; // try again next time
      throw err;
    });
    return pending;
  };
}

function randomBytes(n) {
  return crypto.getRandomValues(new Uint8Array(n));
}
