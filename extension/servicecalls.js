// The popup channel (PROTOCOL.md §2.6): calls the extension's pages make of the service over the
// native link, and the notices the service pushes back.

/** serviceDown is the error a call gets when there is no link to the service to carry it. */
export const serviceDownError = (message) => ({ code: 1202, name: "service_down", message });

/**
 * ServiceCalls numbers calls, sends each as {call, method, params} and settles it with the
 * service's {event: "callReply", call, result | error}. Every call ends: by its reply, by its
 * timeout, or by failAll when the link to the service goes away.
 *
 *   post       sends one message over the native port (throws when the port is closed)
 *   connected  () => whether the service is reachable now
 *   timeoutMs  how long a call waits for its reply
 *   timers     {setTimeout, clearTimeout}, injectable for tests
 */
export class ServiceCalls {
  #next = 1;
  #pending = new Map(); // call → {resolve, timer, method}

  constructor({
    post,
    connected = () => true,
    timeoutMs = 60_000,
    timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t) },
  }) {
    Object.assign(this, { post, connected, timeoutMs, timers });
  }

  /** call resolves to {result} or {error: {code, name, message, data}}; it never rejects. */
  call(method, params) {
    if (typeof method !== "string" || method === "") {
      return Promise.resolve({ error: { code: -32600, name: "invalid_request", message: "a service call needs a method name" } });
    }
    if (!this.connected()) {
      return Promise.resolve({ error: serviceDownError(`${method}: the egohost service is not connected to this browser`) });
    }
    const call = this.#next++;
    return new Promise((resolve) => {
      const timer = this.timers.setTimeout(() => {
        this.#pending.delete(call);
        resolve({ error: { code: 1004, name: "timeout", message: `${method}: no answer from the egohost service within ${this.timeoutMs / 1000} s` } });
      }, this.timeoutMs);
      this.#pending.set(call, { resolve, timer, method });
      try {
        this.post(params === undefined ? { call, method } : { call, method, params });
      } catch (err) {
        this.#settle(call, { error: serviceDownError(`${method}: ${err?.message ?? err}`) });
      }
    });
  }

  /** onReply settles the call a callReply event answers; a late or unknown reply is dropped. */
  onReply(msg) {
    if (typeof msg?.call !== "number") return;
    const answer = msg.error ? { error: normalizeError(msg.error) } : { result: msg.result ?? null };
    this.#settle(msg.call, answer);
  }

  /** failAll ends every waiting call: the link to the service went away. */
  failAll(message) {
    for (const [call, p] of [...this.#pending]) {
      this.#settle(call, { error: serviceDownError(`${p.method}: ${message}`) });
    }
  }

  get pending() {
    return this.#pending.size;
  }

  #settle(call, answer) {
    const p = this.#pending.get(call);
    if (!p) return;
    this.#pending.delete(call);
    this.timers.clearTimeout(p.timer);
    p.resolve(answer);
  }
}

function normalizeError(e) {
  if (e === null || typeof e !== "object") return { code: -32603, name: "internal", message: String(e) };
  return { code: e.code, name: e.data?.name ?? e.name ?? "", message: e.message ?? "", data: e.data ?? {} };
}

/**
 * Notices keeps the latest params of each topic the service pushed ({event: "notice", topic,
 * params}), saves them for the popup (chrome.storage.session key "notices"), sets the icon's
 * badge from a topic's params.badge string, and tells open extension pages.
 */
export class Notices {
  #byTopic = {};

  constructor({ storage, action, runtime, log = console }) {
    Object.assign(this, { storage, action, runtime, log });
  }

  async onNotice(msg) {
    if (typeof msg?.topic !== "string" || msg.topic === "") return;
    this.#byTopic[msg.topic] = { params: msg.params ?? null, at: Date.now() };
    const badge = Object.values(this.#byTopic)
      .map((n) => n.params?.badge)
      .filter((b) => typeof b === "string" && b !== "");
    try {
      await this.action?.setBadgeText({ text: badge.length > 0 ? badge[badge.length - 1] : "" });
      await this.storage?.set({ notices: this.#byTopic });
    } catch (err) {
      this.log.warn(`egohost: notice ${msg.topic}: ${err.message}`);
    }
    // Open popups listen; with none open, sendMessage rejects: nothing to tell.
    this.runtime?.sendMessage({ type: "notice", topic: msg.topic, params: msg.params ?? null }).catch(() => {});
  }

  get all() {
    return this.#byTopic;
  }
}
