// Pages the debugger relay never debugs: the browser's own (chrome:), DevTools' and extensions'
// pages, ours included. Code run in one of our pages has every right of this extension (its
// popup approves pairings and stops automation; chrome.debugger reaches every tab), so whoever
// drives egohost — an agent, or a page that steers one — must never run code there
// (PROTOCOL.md §2.2 forbidden_page). The service refuses such tabs to agents; this is the second
// wall, for whatever reaches the relay anyway.

import { Code, WireError } from "./errors.js";

const FORBIDDEN_SCHEMES = new Set([
  "chrome-extension:",
  "chrome:",
  "chrome-untrusted:",
  "chrome-search:",
  "devtools:",
  "edge:",
  "brave:",
  "opera:",
  "vivaldi:",
]);

/**
 * isForbiddenPage reports whether url is (or wraps, in view-source: or blob:) a browser, DevTools
 * or extension page, or an about: page other than about:blank and about:srcdoc. It reads the URL
 * as Chrome does: tabs and newlines dropped, leading and trailing controls and spaces trimmed,
 * the scheme in any case.
 */
export function isForbiddenPage(url) {
  if (typeof url !== "string") return false;
  const u = url.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
  const colon = u.indexOf(":");
  if (colon <= 0) return false;
  const scheme = u.slice(0, colon + 1).toLowerCase();
  const rest = u.slice(colon + 1);
  if (FORBIDDEN_SCHEMES.has(scheme)) return true;
  if (scheme === "view-source:" || scheme === "blob:") return isForbiddenPage(rest);
  if (scheme === "about:") {
    const page = rest.split(/[?#]/)[0].toLowerCase();
    return page !== "blank" && page !== "srcdoc";
  }
  return false;
}

function forbidden(what, url) {
  return new WireError(Code.forbiddenPage, `${what} shows ${url}: egohost does not debug browser, DevTools or extension pages`);
}

/**
 * PageGuard knows what each debugged tab and child session shows, from chrome.tabs and from the
 * CDP events of the tab (a main-frame navigation, a child target attached), and refuses to attach
 * to or send a command to a forbidden page.
 *
 *   tabs  chrome.tabs (or a fake with get returning a promise)
 */
export class PageGuard {
  #tabs = new Map(); // tabId → forbidden URL it shows or is loading, or "" when allowed
  #sessions = new Map(); // `${tabId} ${sessionId}` → {url, targetId}

  constructor({ tabs }) {
    this.tabs = tabs;
  }

  /** checkAttach throws forbidden_page when the tab shows or loads a forbidden page. */
  async checkAttach(tabId) {
    let tab;
    try {
      tab = await this.tabs.get(tabId);
    } catch {
      return; // no such tab: the attach itself says so
    }
    this.noteTab(tabId, tab);
    this.checkSend(tabId);
  }

  /** checkSend throws forbidden_page when the tab, or the child session, shows a forbidden page. */
  checkSend(tabId, sessionId) {
    const url = this.#tabs.get(tabId);
    if (url) throw forbidden(`tab ${tabId}`, url);
    if (sessionId === undefined) return;
    const s = this.#sessions.get(`${tabId} ${sessionId}`);
    if (s && isForbiddenPage(s.url)) throw forbidden(`session ${sessionId} of tab ${tabId}`, s.url);
  }

  /** noteTab records what a tab (a chrome.tabs.Tab) shows; it returns whether that is forbidden. */
  noteTab(tabId, tab) {
    const url = [tab?.url, tab?.pendingUrl].find((u) => isForbiddenPage(u)) ?? "";
    this.#tabs.set(tabId, url);
    return url !== "";
  }

  /**
   * noteEvent follows a CDP event of a debugged tab; it returns true when the tab's main frame has
   * just committed a forbidden page (the relay then detaches it).
   */
  noteEvent(source, method, params) {
    const tabId = source?.tabId;
    if (typeof tabId !== "number") return false;
    switch (method) {
      case "Target.attachedToTarget": {
        const info = params?.targetInfo ?? {};
        this.#sessions.set(`${tabId} ${params?.sessionId}`, { url: info.url ?? "", targetId: info.targetId });
        return false;
      }
      case "Target.detachedFromTarget":
        this.#sessions.delete(`${tabId} ${params?.sessionId}`);
        return false;
      case "Target.targetInfoChanged": {
        const info = params?.targetInfo ?? {};
        for (const s of this.#sessions.values()) if (s.targetId === info.targetId) s.url = info.url ?? s.url;
        return false;
      }
      case "Page.frameNavigated": {
        const frame = params?.frame;
        if (!frame || frame.parentId) return false;
        const url = (frame.url ?? "") + (frame.urlFragment ?? "");
        if (source.sessionId !== undefined) {
          const s = this.#sessions.get(`${tabId} ${source.sessionId}`);
          if (s) s.url = url;
          return false;
        }
        return this.noteTab(tabId, { url });
      }
    }
    return false;
  }

  /** forget drops what is known of a tab (closed, or no longer debugged). */
  forget(tabId) {
    this.#tabs.delete(tabId);
    for (const key of [...this.#sessions.keys()]) if (key.startsWith(`${tabId} `)) this.#sessions.delete(key);
  }
}
