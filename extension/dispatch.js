// Requests from the service (PROTOCOL.md §2.1): validation, routing, and exactly one reply each.

import { Code, WireError, classifyChromeError, messageOf, toWireError } from "./errors.js";
import { OPS } from "./opset.js";

/** OPS lists every op of PROTOCOL.md §2.1 with the fields it takes (declared in opset.js). */
export { OPS };

/** GROUP_COLORS are Chrome's tab group colours (chrome.tabGroups.Color). */
export const GROUP_COLORS = Object.freeze(["grey", "blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange"]);

/**
 * validateRequest checks a request's shape. It returns the error object for a bad one
 * (bad_request or unknown_op) and null for a good one.
 */
export function validateRequest(msg) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    return { code: Code.badRequest, message: "request must be a JSON object" };
  }
  if (typeof msg.id !== "number" || !Number.isFinite(msg.id)) {
    return { code: Code.badRequest, message: "request needs a numeric `id`" };
  }
  if (typeof msg.op !== "string") return { code: Code.badRequest, message: "request needs a string `op`" };
  if (!Object.hasOwn(OPS, msg.op)) return { code: Code.unknownOp, message: `unknown op ${JSON.stringify(msg.op)}` };
  for (const [field, kind] of Object.entries(OPS[msg.op])) {
    const optional = kind.endsWith("?");
    const value = msg[field];
    if (value === undefined) {
      if (optional) continue;
      return { code: Code.badRequest, message: `${msg.op}: missing field \`${field}\`` };
    }
    if (!hasKind(value, optional ? kind.slice(0, -1) : kind)) {
      return { code: Code.badRequest, message: `${msg.op}: field \`${field}\` must be ${describeKind(kind)}, got ${JSON.stringify(value)}` };
    }
  }
  return null;
}

function hasKind(value, kind) {
  switch (kind) {
    case "tabId":
      return Number.isInteger(value) && value >= 0;
    case "string":
      return typeof value === "string";
    case "bool":
      return typeof value === "boolean";
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "tabIds":
      return Array.isArray(value) && value.length > 0 && value.every((v) => Number.isInteger(v) && v >= 0);
    case "color":
      return GROUP_COLORS.includes(value);
    case "names":
      return Array.isArray(value) && value.length <= 256 && value.every((v) => typeof v === "string" && v.length <= 100);
    default:
      return true;
  }
}

function describeKind(kind) {
  return {
    tabId: "a tab id (non-negative integer)",
    tabIds: "a non-empty array of tab ids",
    string: "a string",
    bool: "a boolean",
    object: "a JSON object",
    color: `one of ${GROUP_COLORS.join(", ")}`,
    names: "an array of at most 256 strings of at most 100 characters",
  }[kind.replace("?", "")] ?? kind;
}

/**
 * safePost posts one message and never throws. Chrome throws synchronously from
 * port.postMessage for a message over 64 MiB ("Message exceeded maximum allowed size of 64MiB.");
 * for a reply (a message with an id) safePost then posts `{id, error: {code: "too_large"}}`
 * instead, so the service never waits forever. It returns true when the original went out.
 */
export function safePost(post, msg, log = console) {
  try {
    post(msg);
    return true;
  } catch (err) {
    const message = messageOf(err);
    const hasId = msg !== null && typeof msg === "object" && "id" in msg;
    if (!hasId) {
      log.warn?.(`egohost: could not send ${msg?.event ?? "message"}: ${message}`);
      return false;
    }
    const code = classifyChromeError(message).kind === "too_large" ? Code.tooLarge : Code.internal;
    try {
      post({ id: msg.id, error: { code, message: `reply could not be sent: ${message}` } });
    } catch (err2) {
      log.warn?.(`egohost: could not send reply ${msg.id}: ${message}; nor its error: ${messageOf(err2)}`);
    }
    return false;
  }
}

/**
 * Dispatcher answers requests. handlers maps each op to `async (request) => result`; a handler
 * reports failure by throwing (a WireError for a specific code, anything else becomes internal).
 * post sends one message to the service and may throw (see safePost).
 */
export class Dispatcher {
  constructor({ handlers, post, log = console }) {
    this.handlers = handlers;
    this.post = post;
    this.log = log;
  }

  /** handle answers one request exactly once. It never throws; it resolves when the reply is sent. */
  async handle(msg) {
    const invalid = validateRequest(msg);
    if (invalid) {
      const id = typeof msg?.id === "number" || typeof msg?.id === "string" ? msg.id : null;
      this.reply({ id, error: invalid });
      return;
    }
    const handler = this.handlers[msg.op];
    if (typeof handler !== "function") {
      this.reply({ id: msg.id, error: { code: Code.unknownOp, message: `op ${JSON.stringify(msg.op)} is not implemented` } });
      return;
    }
    let result;
    try {
      result = await handler(msg);
    } catch (err) {
      this.reply({ id: msg.id, error: toWireError(err) });
      return;
    }
    this.reply({ id: msg.id, result: result ?? {} });
  }

  /** replyError answers request id with an error built from code and message. */
  replyError(id, code, message) {
    this.reply({ id, error: new WireError(code, message).toWire() });
  }

  reply(msg) {
    safePost(this.post, msg, this.log);
  }
}

/** echoResult is the result of the echo op: the data back, and its length in Unicode code points when it is a string. */
export function echoResult(data) {
  const result = { data };
  if (typeof data === "string") result.length = codePoints(data);
  return result;
}

function codePoints(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
