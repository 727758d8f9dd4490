// Wire errors (PROTOCOL.md §2.2) and the one place that reads Chrome's error text.
//
// Chrome reports failures of chrome.debugger and chrome.tabs only as English message strings.
// Matching on them is unavoidable; every such match lives in classifyChromeError so that a
// change in Chrome's wording breaks one function and its test, nothing else.

/** Error codes of PROTOCOL.md §2.2. Append-only. */
export const Code = Object.freeze({
  badRequest: "bad_request",
  unknownOp: "unknown_op",
  noTab: "no_tab",
  attachFailed: "attach_failed",
  alreadyAttached: "already_attached",
  detached: "detached",
  cdpError: "cdp_error",
  tooLarge: "too_large",
  internal: "internal",
  automationStopped: "automation_stopped",
  forbiddenPage: "forbidden_page",
});

/**
 * WireError is an error that becomes a reply's `error` object: `{code, message, ...extra}`.
 * extra carries the code's own fields: `reason` for detached, `cdpCode` for cdp_error.
 */
export class WireError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.name = "WireError";
    this.code = code;
    this.extra = extra;
  }

  toWire() {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

/** toWireError turns anything thrown into the `error` object of a reply. */
export function toWireError(err) {
  if (err instanceof WireError) return err.toWire();
  return { code: Code.internal, message: messageOf(err) };
}

/** messageOf returns the text of an Error, a chrome.runtime.lastError, or any thrown value. */
export function messageOf(err) {
  if (err == null) return "unknown error";
  if (typeof err === "string") return err;
  if (typeof err.message === "string") return err.message;
  return String(err);
}

/**
 * classifyChromeError names what a Chrome error message means. It returns one of:
 *   {kind: "cdp", cdpCode, message}   a CDP protocol error (Chrome gives it as JSON text:
 *                                     {"code":-32602,"message":"Invalid parameters","data":"…"})
 *   {kind: "already_attached"}        "Another debugger is already attached to the tab …"
 *   {kind: "not_attached", refused}   "Debugger is not attached to the tab …" (refused: true: Chrome
 *                                     refused the command, it did not run), "Detached while handling
 *                                     command." (it may have run)
 *   {kind: "no_tab"}                  "No tab with id: 5.", "No tab with given id 5."
 *   {kind: "too_large"}               "Message exceeded maximum allowed size of 64MiB."
 *   {kind: "other"}
 */
export function classifyChromeError(message) {
  const text = String(message ?? "");
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const parsed = JSON.parse(trimmed);
      if (parsed && typeof parsed.message === "string") {
        // Chrome puts the detail of e.g. "Invalid parameters" in `data`; keep it.
        const detail = typeof parsed.data === "string" && parsed.data !== "" ? `: ${parsed.data}` : "";
        return { kind: "cdp", cdpCode: typeof parsed.code === "number" ? parsed.code : undefined, message: parsed.message + detail };
      }
    } catch {
      // Not JSON after all: fall through to the text matches.
    }
  }
  if (/another debugger is already attached/i.test(text)) return { kind: "already_attached" };
  if (/debugger is not attached/i.test(text)) return { kind: "not_attached", refused: true };
  if (/detached while handling command/i.test(text)) return { kind: "not_attached" };
  if (/no tab with (given )?id/i.test(text)) return { kind: "no_tab" };
  if (/exceeded maximum allowed size/i.test(text)) return { kind: "too_large" };
  return { kind: "other" };
}
