// The service worker: wires the native link, the request router and the chrome.* relays, and
// answers the popup. Logic lives in the modules it imports; this file only connects them.

import { AskNotifier } from "./asknotify.js";
import { AutomationSwitch, REASON as STOPPED } from "./automation.js";
import { DebuggerRelay, FORBIDDEN_PAGE } from "./debugger.js";
import { GroupOps } from "./groups.js";
import { Dispatcher, safePost } from "./dispatch.js";
import { downloadOps, installDownloadEvents } from "./downloads.js";
import { cachedBrowserKey } from "./identity.js";
import { NativeLink } from "./native.js";
import { buildHandlers } from "./ops.js";
import { PageGuard } from "./pageguard.js";
import { Router } from "./router.js";
import { popupSenderRefusal } from "./senders.js";
import { Notices, ServiceCalls } from "./servicecalls.js";
import { PopupWindows, TabOps, installTabEvents, toTab } from "./tabs.js";
import { ALARM, ensureWakeAlarm } from "./wake.js";

const HOST_NAME = "com.egohost.host";
const VERSION = chrome.runtime.getManifest().version;
const browserKey = cachedBrowserKey(chrome.storage.local);

const state = {
  relay: null, // latest relay event: {state, socket | error, retryMs, at}
  welcome: null, // latest welcome event: {browserId, serviceVersion, servicePid, at}
  protocolError: "", // latest broken frame from the host, for the popup
  protocolErrorAt: 0,
};

// Filled in below; the closures only run once everything exists.
let link;
const post = (msg) => link.post(msg);
const emit = (event) => {
  if (link.connected) safePost(post, event);
};

// The popup's calls of the service (PROTOCOL.md §2.6) need the relay connected to the service.
const calls = new ServiceCalls({ post, connected: () => link.connected && state.relay?.state === "connected" });
const notices = new Notices({ storage: chrome.storage.session, action: chrome.action, runtime: chrome.runtime });
// The asks' Chrome notifications (asknotify.js). On the worker's global for the end-to-end test,
// which presses a button through onButton as the listener below does: only the extension's own
// pages and worker share this global, no web page.
const asks = new AskNotifier({ notifications: chrome.notifications, calls, action: chrome.action, tabs: chrome.tabs, windows: chrome.windows });
globalThis.egohostAsks = asks;

const automation = new AutomationSwitch({ storage: chrome.storage.local });
const pages = new PageGuard({ tabs: chrome.tabs });
const relay = new DebuggerRelay({ dbg: chrome.debugger, emit, onChange: () => saveStatusSoon(), guard: () => automation.refusal(), pages });
const isAttached = (tabId) => relay.isAttached(tabId);
// Registers chrome.windows' listeners, synchronously at the top level like the others below.
const popupWindows = new PopupWindows(chrome.windows);
const isPopup = (windowId) => popupWindows.has(windowId);
const tabOps = new TabOps({ tabs: chrome.tabs, windows: chrome.windows, isAttached, isPopup });
const groupOps = new GroupOps({ tabs: chrome.tabs, tabGroups: chrome.tabGroups });
const dispatcher = new Dispatcher({ handlers: buildHandlers({ relay, tabOps, groupOps, downloadOps: downloadOps(chrome.downloads) }), post });
const router = new Router({
  dispatcher,
  onRelay(msg) {
    // The service behind the relay changed (went down, or a new one answered): a chunked
    // message half received from the old one can never complete.
    router.reset();
    state.relay = { ...msg, at: Date.now() };
    calls.failAll(`the service behind the relay changed (${msg.state})`);
    // The asks shown were the service before's: none of their buttons may answer this one's.
    asks.clearAll().catch((err) => console.warn(`egohost: ask notifications: ${err.message}`));
    if (msg.state === "connected") {
      link.healthy();
      sendHello();
    } else {
      state.welcome = null;
    }
    saveStatusSoon();
  },
  onWelcome(msg) {
    state.welcome = { ...msg, at: Date.now() };
    saveStatusSoon();
  },
  onEvent(msg) {
    if (msg.event === "callReply") calls.onReply(msg);
    else if (msg.event === "notice") {
      notices.onNotice(msg).then(() => automation.stopped && showStopped()); // "off" wins the badge
      if (msg.topic === "confirm") asks.onNotice(msg.params).catch((err) => console.warn(`egohost: ask notifications: ${err.message}`));
    }
  },
  onProtocolError(message) {
    console.warn(`egohost: ${message}`);
    state.protocolError = message;
    state.protocolErrorAt = Date.now();
    saveStatusSoon();
  },
});

link = new NativeLink({
  runtime: chrome.runtime,
  hostName: HOST_NAME,
  onOpen: sendHello,
  onMessage: (msg) => router.route(msg),
  onClose(error) {
    if (error) console.warn(`egohost: native host ${HOST_NAME}: ${error}`);
    state.relay = null;
    state.welcome = null;
    router.reset();
    calls.failAll(error ? `the native host closed: ${error}` : "the native host closed");
    asks.clearAll().catch((err) => console.warn(`egohost: ask notifications: ${err.message}`));
  },
  onChange: () => saveStatusSoon(),
});

// Listeners are registered synchronously, at the top level, so Chrome can wake the worker for them.
relay.install();
installTabEvents(chrome.tabs, emit, isAttached, isPopup);
installDownloadEvents(chrome.downloads, emit);
chrome.runtime.onMessage.addListener(onPopupMessage);
chrome.notifications.onButtonClicked.addListener((id, index) => void asks.onButton(id, index));
chrome.notifications.onClicked.addListener((id) => void asks.onClicked(id));
// A debugged tab that goes to a browser, DevTools or extension page is let go at once (pageguard.js).
chrome.tabs.onUpdated.addListener((tabId, _change, tab) => {
  if (relay.isAttached(tabId) && pages.noteTab(tabId, tab)) relay.detach(tabId, FORBIDDEN_PAGE).catch(() => {});
});
chrome.tabs.onRemoved.addListener((tabId) => relay.forgetTab(tabId));
chrome.runtime.onConnect.addListener(onPopupPort);
// Connect once the sessions a previous worker left are dropped (they would answer the new link)
// and the Stop-all switch is read (the hello carries it).
// The popup windows opened before this worker are known before the hello too (its tabs say so).
const cleaned = Promise.all([
  dropStaleSessions(),
  automation.load().then(showStopped),
  popupWindows.load().catch((err) => console.warn(`egohost: listing popup windows: ${err.message}`)),
]);
cleaned.finally(() => link.connect());
// Events that start a stopped worker. Starting runs this file, which connects (above); the
// listeners make sure Chrome starts the worker for them: the browser started (with no tab event,
// e.g. no window), the extension was installed or updated, the wake alarm fired, a window opened.
const wake = () => cleaned.finally(() => link.wake());
chrome.runtime.onStartup.addListener(wake);
chrome.runtime.onInstalled.addListener(wake);
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) wake();
});
chrome.windows.onCreated.addListener(wake);

ensureWakeAlarm({ alarms: chrome.alarms, management: chrome.management }).catch((err) =>
  console.warn(`egohost: wake alarm: ${err.message}`),
);

// While the port is closed nothing else keeps the worker alive between retries (up to 30 s apart,
// and Chrome stops an idle worker after 30 s, timers and all). Any extension API call resets
// that idle clock.
setInterval(() => {
  if (!link.connected) chrome.runtime.getPlatformInfo().catch(() => {});
}, 20_000);

async function sendHello() {
  relay.unfenceAll(); // a new service link knows nothing of the detaches the fences wait on
  let tabs = [];
  try {
    tabs = (await tabOps.list()).tabs;
  } catch (err) {
    console.warn(`egohost: hello: listing tabs: ${err.message}`);
  }
  let key;
  try {
    key = await browserKey();
  } catch (err) {
    console.warn(`egohost: hello: reading the browser key: ${err.message}`); // the service gives a fresh ID
  }
  const hello = { event: "hello", extensionId: chrome.runtime.id, version: VERSION, userAgent: navigator.userAgent, browserKey: key, tabs };
  if (automation.stopped) hello.automationStopped = true;
  emit(hello);
}

// A restarted worker may find debugger sessions its previous life left on tabs; the service link
// they belonged to is gone with the old port, so end them. Detach fails harmlessly on sessions
// that are not ours (DevTools, another extension).
async function dropStaleSessions() {
  try {
    const targets = await chrome.debugger.getTargets();
    await Promise.allSettled(
      targets.filter((t) => t.attached && typeof t.tabId === "number").map((t) => chrome.debugger.detach({ tabId: t.tabId })),
    );
  } catch (err) {
    console.warn(`egohost: cleaning stale debugger sessions: ${err.message}`);
  }
}

async function statusSnapshot() {
  const attached = [];
  for (const tabId of relay.attachedTabIds()) {
    try {
      attached.push(toTab(await chrome.tabs.get(tabId), isAttached, isPopup));
    } catch {
      attached.push({ id: tabId, title: "", url: "", attached: true });
    }
  }
  return {
    extensionId: chrome.runtime.id,
    version: VERSION,
    native: link.status(),
    relay: state.relay,
    welcome: state.welcome,
    protocolError: state.protocolError,
    protocolErrorAt: state.protocolErrorAt,
    attached,
    automationStopped: automation.stopped,
    now: Date.now(),
  };
}

// The popup falls back to this copy when the worker does not answer.
let saveTimer = null;
function saveStatusSoon() {
  if (saveTimer !== null) return;
  saveTimer = setTimeout(async () => {
    saveTimer = null;
    try {
      await chrome.storage.session.set({ status: await statusSnapshot() });
    } catch (err) {
      console.warn(`egohost: saving status: ${err.message}`);
    }
  }, 250);
}

// refusedSender says why a message or port sender may not speak for the person ("" when it may).
function refusedSender(sender) {
  const why = popupSenderRefusal(sender, { extensionId: chrome.runtime.id, controlled: (tabId) => relay.wasControlled(tabId) });
  if (why !== "" && sender?.id === chrome.runtime.id) console.warn(`egohost: refused a popup-channel call from ${sender?.url}: ${why}`);
  return why;
}

function onPopupMessage(msg, sender, sendResponse) {
  if (sender.id !== chrome.runtime.id || typeof msg?.type !== "string") return false;
  const refused = refusedSender(sender);
  if (refused !== "") {
    sendResponse({ error: { code: 1140, name: "scope_denied", message: `only the egohost popup may make this call: ${refused}`, data: {} } });
    return false;
  }
  if (msg.type === "service.call") {
    // {type: "service.call", method, params} → {result} | {error: {code, name, message, data}}
    calls.call(msg.method, msg.params).then(sendResponse);
    return true;
  }
  const answer = async () => {
    // A worker just started answers only once it has read the Stop-all switch: before, its status
    // would say "on" for a switch that is off, and the popup's next press would turn it off again.
    await cleaned.catch(() => {});
    switch (msg.type) {
      case "status":
        break;
      case "reconnect":
        link.reconnectNow();
        break;
      case "detach":
        await relay.detach(msg.tabId, "detached_in_popup");
        break;
      case "automation": {
        // Stop all: refuse attaches at once, detach every tab, then tell the service (which
        // refuses agents' calls). The switch changes here first, so a hello sent meanwhile (the
        // relay reconnecting) carries the new state too and the service cannot end up with the old.
        const stopped = msg.stopped === true;
        await automation.set(stopped);
        if (stopped) await relay.detachAll(STOPPED);
        const service = await calls.call("popup.automation", { stopped });
        showStopped();
        return { status: await statusSnapshot(), service };
      }
      default:
        return { error: `unknown popup message ${msg.type}` };
    }
    return { status: await statusSnapshot() };
  };
  answer().then(sendResponse, (err) => sendResponse({ error: err.message, status: null }));
  return true; // the answer is asynchronous
}

// The Stop-all switch shows on the icon while it is off.
function showStopped() {
  chrome.action
    .setBadgeText({ text: automation.stopped ? "off" : "" })
    .catch((err) => console.warn(`egohost: badge: ${err.message}`));
}

// An open popup keeps a port named "popup" and tells it the tab it highlights in; when the popup
// closes (the port disconnects) its boxes are taken off that page. A pick in progress stays: the
// popup closes as the person clicks into the page to pick.
function onPopupPort(port) {
  if (port.name !== "popup" || port.sender?.id !== chrome.runtime.id || refusedSender(port.sender) !== "") return;
  let tab = 0;
  port.onMessage.addListener((msg) => {
    if (Number.isInteger(msg?.tab)) tab = msg.tab;
  });
  port.onDisconnect.addListener(() => {
    if (tab > 0) calls.call("popup.clear", { tab });
  });
}
