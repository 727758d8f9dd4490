// Errors of service calls in plain words, each with what to do about it (issue 12: never a raw
// code alone). The codes are PROTOCOL.md §3.3's names.

const FIXES = {
  service_down: "The egohost service is not running or not reachable. Start it with `egohost serve` (or `egohost install` to run it as a user service), then press Reconnect now on the Status tab.",
  no_browser: "The service has no link to this browser yet. Wait a moment, or press Reconnect now on the Status tab.",
  browser_reconnecting: "This browser's link to the service is coming back. Try again in a moment.",
  automation_stopped: "Automation is stopped in this browser. Switch it back on with the switch at the top.",
  tab_not_found: "That tab is gone. Open the popup again on the tab you want.",
  attach_failed: "Chrome does not let extensions look into this page (chrome:// pages, the Web Store, other extensions). Try a web page.",
  already_attached: "Another debugger holds this tab (DevTools, or another extension). Close it, then try again.",
  detached: "The debugger was detached from the tab (someone pressed Cancel on Chrome's bar, or the tab navigated away). Try again.",
  dialog_open: "A JavaScript dialog (alert, confirm) blocks the page. Answer it in the page, then try again.",
  timeout: "The page did not answer in time. It may be busy or still loading; try again.",
  not_found: "No element matches (yet): check the locator, or wait for the page to show it.",
  ambiguous: "Several elements match; add >> nth=N or make the locator more specific.",
  stale_ref: "That ref is from an older page. Take a new snapshot.",
  unknown_ref: "This tab has no such ref. Take a snapshot first.",
  foreign_ref: "That is another tool's ref; refs here look like @12.",
  busy: "Too many calls from the popup are running. Wait a moment.",
  unauthorized: "The service refused the call.",
};

/** explainError returns one sentence for a {code, name, message} error: the fix when known, else its message. */
export function explainError(e) {
  if (!e) return "";
  const fix = FIXES[e.name];
  if (fix) return fix;
  return e.message ? `${e.message}` : `The call failed (${e.name || e.code}).`;
}

/** FIX_NAMES lists the codes explainError knows, for tests. */
export const FIX_NAMES = Object.freeze(Object.keys(FIXES));
