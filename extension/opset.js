// The op set of PROTOCOL.md §2.1: every op the extension answers, with the fields it takes. This is
// the one place the ops are declared: dispatch.js validates requests with it, ops.js must handle
// each op (test/ops.test.mjs checks), and extwire's TestOpSetMatchesTheExtension checks the
// service's op types (internal/link/extwire/ops.go) and PROTOCOL.md's table against it. The object below is
// JSON, which that Go test reads: keep it so.
//
// Field kinds: "tabId" (non-negative integer), "tabIds" (non-empty array of them), "string",
// "bool", "object" (plain JSON object), "color" (a tab group colour), "names" (an array of at most
// 256 strings of at most 100 characters each, possibly empty), "any"; a trailing "?" makes the
// field optional.
export const OPS = Object.freeze(
{
  "ping": {},
  "cdp": { "tabId": "tabId", "method": "string", "params": "object?", "sessionId": "string?", "reattach": "bool?", "then": "object?" },
  "attach": { "tabId": "tabId" },
  "detach": { "tabId": "tabId" },
  "tabs.list": {},
  "tabs.focused": {},
  "tabs.open": { "url": "string?", "active": "bool?", "windowId": "tabId?", "newWindow": "bool?" },
  "tabs.close": { "tabId": "tabId" },
  "tabs.activate": { "tabId": "tabId", "noFocus": "bool?" },
  "echo": { "data": "any?" },
  "groups.add": { "tabIds": "tabIds", "groupId": "tabId?", "title": "string?", "color": "color?" },
  "groups.update": { "groupId": "tabId", "title": "string?", "color": "color?" },
  "groups.list": {},
  "downloads.discard": { "downloadId": "tabId" },
  "events.quiet": { "methods": "names", "lifecycle": "names" }
}
);
