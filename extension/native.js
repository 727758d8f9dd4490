// The native-messaging port to the egohost relay: connect, reconnect with backoff, status.
//
// Chrome spawns a new host process for every connectNative(), and nothing respawns it when it
// exits, so the link reconnects from onDisconnect after a backoff delay. An open port also keeps
// the MV3 service worker alive.

import { Backoff } from "./backoff.js";
import { messageOf } from "./errors.js";

/**
 * NativeLink owns the port to the native host.
 *
 *   runtime    chrome.runtime (connectNative, lastError) or a fake
 *   hostName   the native host's name, e.g. "com.egohost.host"
 *   onOpen     called after each connectNative, before any message (send hello here)
 *   onMessage  called with each message from the host
 *   onClose    called with Chrome's error text (or "") when the port closes
 *   timers     {setTimeout, clearTimeout}; now: () => milliseconds; both injectable for tests
 */
export class NativeLink {
  #port = null;
  #timer = null;

  constructor({
    runtime,
    hostName,
    onOpen = () => {},
    onMessage = () => {},
    onClose = () => {},
    onChange = () => {},
    backoff = new Backoff(),
    timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t) },
    now = () => Date.now(),
  }) {
    Object.assign(this, { runtime, hostName, onOpen, onMessage, onClose, onChange, backoff, timers, now });
    this.lastError = "";
    this.lastErrorAt = 0;
    this.connectedAt = 0;
    this.nextRetryAt = 0;
    this.hostSeen = false; // a message arrived on the current port, so the host runs
  }

  /** connected reports whether a port is open (Chrome may still be starting the host). */
  get connected() {
    return this.#port !== null;
  }

  /** connect opens the port unless it is open; it cancels a pending retry. */
  connect() {
    if (this.#port) return;
    this.#cancelRetry();
    let port;
    try {
      port = this.runtime.connectNative(this.hostName);
    } catch (err) {
      this.#closed(messageOf(err));
      return;
    }
    this.#port = port;
    this.hostSeen = false;
    this.connectedAt = this.now();
    port.onMessage.addListener((msg) => {
      if (this.#port !== port) return;
      if (!this.hostSeen) {
        this.hostSeen = true;
        this.onChange();
      }
      this.onMessage(msg);
    });
    port.onDisconnect.addListener(() => {
      // lastError must be read inside the listener, or Chrome logs it as unchecked.
      const error = this.runtime.lastError?.message ?? port.error?.message ?? "";
      if (this.#port !== port) return;
      this.#port = null;
      this.#closed(error);
    });
    this.onChange();
    this.onOpen();
  }

  /**
   * wake connects unless a port is open or a retry is already scheduled (so the wake alarm never
   * defeats the backoff). A worker Chrome stopped and started again has no retry scheduled: it
   * connects at once.
   */
  wake() {
    if (this.#port || this.#timer !== null) return;
    this.connect();
  }

  /** post sends one message to the host. It throws when no port is open or Chrome refuses the message. */
  post(msg) {
    if (!this.#port) throw new Error("native host not connected");
    this.#port.postMessage(msg);
  }

  /** healthy tells the link the chain works end to end (the relay reached the service): reset the backoff. */
  healthy() {
    this.backoff.reset();
  }

  /** reconnectNow drops the port (if any) and connects at once with a fresh backoff. */
  reconnectNow() {
    const port = this.#port;
    this.#port = null;
    if (port) {
      try {
        port.disconnect();
      } catch {
        // already gone
      }
      this.onClose("");
    }
    this.#cancelRetry();
    this.backoff.reset();
    this.connect();
  }

  /** status is a plain snapshot for the popup. */
  status() {
    return {
      connected: this.connected,
      hostSeen: this.connected && this.hostSeen,
      hostName: this.hostName,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
      connectedAt: this.connectedAt,
      nextRetryAt: this.#timer !== null ? this.nextRetryAt : 0,
      attempts: this.backoff.attempts,
    };
  }

  #closed(error) {
    this.hostSeen = false;
    if (error) {
      this.lastError = error;
      this.lastErrorAt = this.now();
    } else {
      this.lastError = "the native host closed the connection";
      this.lastErrorAt = this.now();
    }
    this.onClose(error);
    const delay = this.backoff.next();
    this.nextRetryAt = this.now() + delay;
    this.#timer = this.timers.setTimeout(() => {
      this.#timer = null;
      this.connect();
    }, delay);
    this.onChange();
  }

  #cancelRetry() {
    if (this.#timer !== null) {
      this.timers.clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.nextRetryAt = 0;
  }
}
