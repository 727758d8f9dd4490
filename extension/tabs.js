// Tabs through chrome.tabs: the Tab shape of PROTOCOL.md §2.1, the tabs.* ops, and tab events.

import { Code, WireError, classifyChromeError, messageOf } from "./errors.js";

/**
 * toTab converts a chrome.tabs.Tab to the wire's Tab. isAttached(tabId) tells whether we debug it,
 * isPopup(windowId) whether its window is a popup window (PopupWindows.has).
 */
export function toTab(tab, isAttached = () => false, isPopup = () => false) {
  return {
    id: tab.id,
    windowId: tab.windowId,
    // A tab created a moment ago has an empty url and its destination in pendingUrl.
    url: tab.url || tab.pendingUrl || "",
    title: tab.title ?? "",
    active: Boolean(tab.active),
    status: tab.status ?? "unloaded",
    attached: isAttached(tab.id),
    // Chrome's tab group (an egohost space when the service knows it); absent when ungrouped.
    ...(typeof tab.groupId === "number" && tab.groupId >= 0 ? { groupId: tab.groupId } : {}),
    // The tab that opened this one (a link with target=_blank, window.open): what an action
    // opened, for its result (PROTOCOL.md ActionResult.opened).
    ...(typeof tab.openerTabId === "number" ? { openerTabId: tab.openerTabId } : {}),
    // A popup window's tab (window.open with features: a sign-in or payment window): Chrome groups
    // none, so the service counts it in its opener's space.
    ...(isPopup(tab.windowId) ? { popup: true } : {}),
  };
}

/**
 * PopupWindows knows which windows are popup windows (chrome.windows.Window.type "popup"), which
 * chrome.tabs.Tab does not say: from chrome.windows' events, and the list load() reads (a
 * worker that starts finds the windows opened before it).
 */
export class PopupWindows {
  constructor(windows) {
    this.windows = windows;
    this.ids = new Set();
    windows.onCreated.addListener((w) => {
      if (w?.type === "popup") this.ids.add(w.id);
    });
    windows.onRemoved.addListener((id) => this.ids.delete(id));
  }

  async load() {
    for (const w of await this.windows.getAll({ windowTypes: ["popup"] })) this.ids.add(w.id);
  }

  has(windowId) {
    return this.ids.has(windowId);
  }
}

/**
 * TabOps implements the tabs.* ops over chrome.tabs and chrome.windows (or fakes of them whose
 * methods return promises).
 */
export class TabOps {
  constructor({ tabs, windows, isAttached = () => false, isPopup = () => false }) {
    this.tabs = tabs;
    this.windows = windows;
    this.isAttached = isAttached;
    this.isPopup = isPopup;
  }

  async list() {
    const all = await this.tabs.query({});
    // The last focused window's tabs carry focused: true, so "the active tab" is unambiguous
    // when several windows are open.
    let focusedWindow;
    if (this.windows?.getLastFocused) {
      try {
        focusedWindow = (await this.windows.getLastFocused({}))?.id;
      } catch {
        focusedWindow = undefined;
      }
    }
    return {
      tabs: all
        .filter((t) => typeof t.id === "number")
        .map((t) => {
          const out = toTab(t, this.isAttached, this.isPopup);
          if (focusedWindow !== undefined && t.windowId === focusedWindow) out.focused = true;
          return out;
        }),
    };
  }

  /**
   * focused is the person's tab in one question, whatever the number of tabs: the active tab of
   * the last focused window (focused: true), else any window's active tab; null when there is
   * none. tabs.list answers the same from the whole list, which grows with the tabs.
   */
  async focused() {
    // The window as tabs.list picks it (chrome.windows.getLastFocused: the last focused browser
    // window); tabs.query's lastFocusedWindow counts an undocked DevTools window too, and then
    // finds no tab.
    let win;
    try {
      win = (await this.windows?.getLastFocused?.({ windowTypes: ["normal", "popup"] }))?.id;
    } catch {
      win = undefined;
    }
    if (win !== undefined) {
      const [mine] = await this.tabs.query({ active: true, windowId: win });
      if (mine && typeof mine.id === "number") return { tab: { ...toTab(mine, this.isAttached, this.isPopup), focused: true } };
    }
    const any = (await this.tabs.query({ active: true })).find((t) => typeof t.id === "number");
    return { tab: any ? toTab(any, this.isAttached, this.isPopup) : null };
  }

  async get(tabId) {
    return toTab(await call(tabId, () => this.tabs.get(tabId)), this.isAttached, this.isPopup);
  }

  /**
   * open opens a tab: in windowId when given, or as the first tab of a new unfocused window
   * (newWindow: an agent's space gets its own window, where its active tab renders and takes
   * input, without taking the person's focus).
   */
  async open({ url, active = true, windowId, newWindow = false }) {
    if (newWindow) {
      const props = { focused: false };
      if (url !== undefined) props.url = url;
      const win = await call(undefined, () => this.windows.create(props));
      return { tab: toTab(win.tabs[0], this.isAttached, this.isPopup) };
    }
    const props = { active };
    if (url !== undefined) props.url = url;
    if (windowId !== undefined) props.windowId = windowId;
    const tab = await call(undefined, () => this.tabs.create(props));
    return { tab: toTab(tab, this.isAttached, this.isPopup) };
  }

  async close(tabId) {
    await call(tabId, () => this.tabs.remove(tabId));
    return { closed: true };
  }

  /** activate makes tabId its window's active tab and, unless noFocus, focuses the window. */
  async activate(tabId, { noFocus = false } = {}) {
    let tab = await call(tabId, () => this.tabs.update(tabId, { active: true }));
    if (!noFocus && this.windows && typeof tab.windowId === "number") {
      await call(tabId, () => this.windows.update(tab.windowId, { focused: true }));
      tab = await call(tabId, () => this.tabs.get(tabId));
    }
    return { tab: toTab(tab, this.isAttached, this.isPopup) };
  }
}

// call runs one chrome.tabs call and maps "No tab with id" to no_tab, anything else to internal.
async function call(tabId, fn) {
  try {
    return await fn();
  } catch (err) {
    const message = messageOf(err);
    if (classifyChromeError(message).kind === "no_tab") throw new WireError(Code.noTab, `no tab with id ${tabId}`);
    throw new WireError(Code.internal, message);
  }
}

// The Tab fields a tab.updated event is about; changes to others (favicon, audible, …) are not sent.
// groupId: the person dragged the tab into or out of a group (a space), or egohost grouped it.
const TAB_FIELDS = ["url", "title", "status", "discarded", "groupId"];

/**
 * installTabEvents forwards chrome.tabs events to the service as tab.created, tab.updated (a move
 * to another window too), tab.removed and tab.activated.
 */
export function installTabEvents(tabs, emit, isAttached = () => false, isPopup = () => false) {
  tabs.onCreated.addListener((tab) => emit({ event: "tab.created", tab: toTab(tab, isAttached, isPopup) }));
  tabs.onUpdated.addListener((tabId, change, tab) => {
    if (TAB_FIELDS.some((f) => f in change)) emit({ event: "tab.updated", tab: toTab(tab, isAttached, isPopup) });
  });
  tabs.onRemoved.addListener((tabId) => emit({ event: "tab.removed", tabId }));
  // A tab moved to another window (dragged out of one, a popup window's "Show as tab"): its windowId
  // changed, which onUpdated does not report; a popup window's tab that leaves its window leaves the
  // space it was in.
  tabs.onAttached.addListener((tabId) =>
    tabs
      .get(tabId)
      .then((tab) => emit({ event: "tab.updated", tab: toTab(tab, isAttached, isPopup) }))
      .catch(() => {}),
  );
  tabs.onActivated.addListener(({ tabId, windowId }) => emit({ event: "tab.activated", tabId, windowId }));
}
