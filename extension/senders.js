// Who may speak for the person on the popup channel (PROTOCOL.md §2.6): the service runs those
// calls as the person (approve a pairing, Stop all), so only the extension's own popup page may
// make them — not another extension, not a web page, and not a page of ours that an agent could
// have run code in (one in a tab the debugger relay controls or controlled).

/** POPUP_PAGES are the paths of the extension's pages that call the service as the person. */
export const POPUP_PAGES = Object.freeze(["/popup.html"]);

/**
 * popupSenderRefusal says why a chrome.runtime message (or port) sender may not use the popup
 * channel, or returns "" when it may.
 *
 *   sender       chrome.runtime.MessageSender
 *   extensionId  chrome.runtime.id
 *   controlled   (tabId) => whether the debugger relay controls, or controlled, that tab
 */
export function popupSenderRefusal(sender, { extensionId, controlled = () => false }) {
  if (!sender || sender.id !== extensionId) return "it is not this extension";
  let url;
  try {
    url = new URL(sender.url);
  } catch {
    return "it has no page URL";
  }
  if (url.protocol !== "chrome-extension:" || url.host !== extensionId) return `${url.protocol}//${url.host} is not this extension's page`;
  if (!POPUP_PAGES.includes(url.pathname)) return `${url.pathname} is not the popup page`;
  const tabId = sender.tab?.id;
  if (typeof tabId === "number" && controlled(tabId)) {
    return `the page is in tab ${tabId}, which egohost's debugger controls (or controlled): an agent may have run code there`;
  }
  return "";
}
