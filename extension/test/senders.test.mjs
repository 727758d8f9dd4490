import assert from "node:assert/strict";
import { test } from "node:test";

import { popupSenderRefusal } from "../senders.js";

const ID = "aokapgkciafkaelljglcdibalbfomkdb";
const popup = `chrome-extension://${ID}/popup.html`;

test("the popup channel takes calls from the extension's own popup page only", () => {
  const controlled = (tabId) => tabId === 7 || tabId === 8;
  const cases = [
    { name: "the action popup", sender: { id: ID, url: popup }, ok: true },
    { name: "the popup opened in a tab nobody debugs (the e2e tests)", sender: { id: ID, url: `${popup}?tab=3`, tab: { id: 3 } }, ok: true },
    { name: "the popup in a tab the debugger controls (the attack)", sender: { id: ID, url: popup, tab: { id: 7 } }, ok: false },
    { name: "the popup in a tab the debugger controlled", sender: { id: ID, url: `${popup}#x`, tab: { id: 8 } }, ok: false },
    { name: "another page of ours", sender: { id: ID, url: `chrome-extension://${ID}/other.html` }, ok: false },
    { name: "a path that only starts like the popup", sender: { id: ID, url: `chrome-extension://${ID}/popup.html.evil` }, ok: false },
    { name: "another extension", sender: { id: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", url: "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/popup.html" }, ok: false },
    { name: "our id with another extension's page", sender: { id: ID, url: "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/popup.html" }, ok: false },
    { name: "a web page", sender: { id: ID, url: "https://example.com/popup.html", tab: { id: 3 } }, ok: false },
    { name: "no URL", sender: { id: ID }, ok: false },
    { name: "no sender", sender: undefined, ok: false },
  ];
  for (const c of cases) {
    const why = popupSenderRefusal(c.sender, { extensionId: ID, controlled });
    assert.equal(why === "", c.ok, `${c.name}: got ${JSON.stringify(why)}`);
  }
});
