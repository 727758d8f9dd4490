// The Stop-all switch (issue 12): the person switches all automation of this browser off in the
// popup. While it is off the debugger relay refuses every attach (so a Detach is not undone by the
// next command), and the service refuses agents' calls (automation_stopped). The switch lives in
// chrome.storage.local, so it survives worker and browser restarts until the person switches back.

import { Code, WireError } from "./errors.js";

/** STORAGE_KEY is the chrome.storage.local key of the switch. */
export const STORAGE_KEY = "automationStopped";

/** REASON is the `detached` reason of the tabs the switch detaches. */
export const REASON = "automation_stopped";

/**
 * AutomationSwitch holds the switch.
 *
 *   storage  chrome.storage.local (or a fake with get and set returning promises)
 */
export class AutomationSwitch {
  #stopped = false;

  constructor({ storage }) {
    this.storage = storage;
  }

  /** stopped reports whether automation is switched off. */
  get stopped() {
    return this.#stopped;
  }

  /** load reads the switch saved by an earlier worker; a storage failure leaves it on. */
  async load() {
    try {
      this.#stopped = (await this.storage.get(STORAGE_KEY))[STORAGE_KEY] === true;
    } catch {
      // nothing saved that we can read
    }
    return this.#stopped;
  }

  /** set switches automation off (true) or on, at once in memory, then saved. */
  async set(stopped) {
    this.#stopped = Boolean(stopped);
    await this.storage.set({ [STORAGE_KEY]: this.#stopped });
    return this.#stopped;
  }

  /** refusal is the error that refuses an attach while stopped, else null (DebuggerRelay's guard). */
  refusal() {
    if (!this.#stopped) return null;
    return new WireError(Code.automationStopped, "automation is stopped in this browser: the person switched it off in the egohost popup");
  }
}
