// Chrome notifications of the asks waiting for the person (issue 26, PROTOCOL.md §3.7.2): one per
// ask of this browser, from the service's `confirm` notice, titled with the agent, saying the act
// in words, with the element's picture when the ask has one. Its buttons "Allow once" and "Deny"
// answer the ask with popup.confirm.answer, the call the popup's buttons make; a click on its body
// opens the popup (else focuses the ask's tab). It is cleared when the ask ends (answered
// anywhere, timed out, its call gone): the next notice no longer lists it; all are cleared when
// the relay or the native host changes (clearAll), and one whose id now names another ask (agent,
// act or kind) is shown anew. Only chrome.* UI
// reaches these handlers; no page can.

/** PREFIX starts the id of every ask's notification: PREFIX + the ask's id. */
export const PREFIX = "egohost-ask:";

/** BUTTONS are the notification's buttons, in the order of onButtonClicked's buttonIndex. */
export const BUTTONS = Object.freeze([
  { title: "Allow once", allow: true },
  { title: "Deny", allow: false },
]);

// ICON is the notification's icon (Chrome requires one): a 16×16 dark amber square.
const ICON =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mOYlc5AEmIY1TCqYfhqAAA8JgEQPwpbewAAAABJRU5ErkJggg==";

/**
 * AskNotifier shows, answers and clears the asks' notifications.
 *
 *   notifications  chrome.notifications
 *   calls          ServiceCalls (the popup channel)
 *   action         chrome.action (openPopup)
 *   tabs, windows  chrome.tabs, chrome.windows (focus the ask's tab when no popup opens)
 */
export class AskNotifier {
  #shown = new Map(); // ask id → the ask (its notification is up, or the person closed it)
  #options = new Map(); // ask id → the options its notification was created with
  #queue = Promise.resolve(); // notices are applied one at a time, in order

  constructor({ notifications, calls, action, tabs, windows, log = console }) {
    Object.assign(this, { notifications, calls, action, tabs, windows, log });
  }

  /**
   * onNotice takes the `confirm` notice's params: {badge, pending: [Confirm]}. Notices apply in
   * order, one at a time: an ask that ended is never shown after its clear.
   */
  onNotice(params) {
    this.#queue = this.#queue.then(() => this.#apply(params));
    return this.#queue;
  }

  async #apply(params) {
    const pending = Array.isArray(params?.pending) ? params.pending.filter((q) => typeof q?.id === "string" && q.id !== "") : [];
    const waiting = new Set(pending.map((q) => q.id));
    // Those a stopped worker left up are Chrome's still: it lists them.
    const up = await Promise.resolve()
      .then(() => this.notifications.getAll())
      .then((all) => Object.keys(all ?? {}).map(askOf).filter((id) => id !== ""))
      .catch(() => []);
    for (const id of new Set([...this.#shown.keys(), ...up])) {
      if (waiting.has(id)) continue;
      this.#shown.delete(id);
      this.#options.delete(id);
      await this.#clear(id);
    }
    // An ask whose notification says another agent, act or kind is not the one it showed (ids
    // are unique across the service's restarts; this is the safe side still): shown anew.
    for (const q of pending) {
      const was = this.#shown.get(q.id);
      if (was && !sameAsk(was, q)) {
        this.#shown.delete(q.id);
        this.#options.delete(q.id);
        await this.#clear(q.id);
      }
    }
    const fresh = pending.filter((q) => !this.#shown.has(q.id));
    if (fresh.length === 0) return;
    for (const q of fresh) this.#shown.set(q.id, q);
    // The notice carries no pictures; the popup's list has them.
    const pictures = new Map();
    const list = await this.calls.call("popup.confirm.list").catch(() => ({}));
    for (const q of list.result?.pending ?? []) {
      if (typeof q?.picture === "string" && q.picture !== "") pictures.set(q.id, q.picture);
    }
    for (const q of fresh) {
      if (!this.#shown.has(q.id)) continue; // it ended meanwhile
      const options = {
        type: "basic",
        iconUrl: ICON,
        title: `${q.agent || "An agent"} asks for your yes`,
        message: String(q.action ?? ""),
        contextMessage: q.kind ? `egohost · ${q.kind}` : "egohost",
        buttons: BUTTONS.map((b) => ({ title: b.title })),
        requireInteraction: true,
        priority: 2,
      };
      if (pictures.has(q.id)) {
        options.type = "image";
        options.imageUrl = `data:image/png;base64,${pictures.get(q.id)}`;
      }
      this.#options.set(q.id, options);
      try {
        await this.notifications.create(PREFIX + q.id, options);
      } catch (err) {
        this.log.warn(`egohost: notification of ask ${q.id}: ${err?.message ?? err}`);
      }
    }
  }

  /**
   * clearAll clears every ask's notification (the relay or the native host changed: the asks of
   * the service before are not this one's to answer). In order with the notices.
   */
  clearAll() {
    this.#queue = this.#queue.then(() => this.#clearAll());
    return this.#queue;
  }

  async #clearAll() {
    const up = await Promise.resolve()
      .then(() => this.notifications.getAll())
      .then((all) => Object.keys(all ?? {}).map(askOf).filter((id) => id !== ""))
      .catch(() => []);
    const ids = new Set([...this.#shown.keys(), ...up]);
    this.#shown.clear();
    this.#options.clear();
    for (const id of ids) await this.#clear(id);
  }

  /**
   * onButton answers the ask of a notification's button (chrome.notifications.onButtonClicked):
   * {result} or {error} as the popup's call gets it; a notification not an ask's is ignored.
   */
  async onButton(notificationId, buttonIndex) {
    const id = askOf(notificationId);
    const button = BUTTONS[buttonIndex];
    if (id === "" || !button) return { ignored: true };
    const answer = await this.calls.call("popup.confirm.answer", { id, allow: button.allow });
    if (answer.error) this.log.warn(`egohost: answer ask ${id}: ${answer.error.message}`);
    await this.#clear(id);
    return answer;
  }

  /** onClicked opens the popup for a click on an ask's body, else focuses the ask's tab. */
  async onClicked(notificationId) {
    const id = askOf(notificationId);
    if (id === "") return;
    try {
      await this.action.openPopup();
      return;
    } catch (err) {
      this.log.info?.(`egohost: no popup for ask ${id}: ${err?.message ?? err}`);
    }
    const tab = this.#shown.get(id)?.tab;
    if (!tab) return;
    try {
      const t = await this.tabs.update(tab, { active: true });
      if (t?.windowId !== undefined) await this.windows.update(t.windowId, { focused: true });
    } catch (err) {
      this.log.warn(`egohost: focus the tab of ask ${id}: ${err?.message ?? err}`);
    }
  }

  /** shown is the options of the notification of ask id (undefined: none): for tests. */
  shown(id) {
    return this.#options.get(id);
  }

  async #clear(id) {
    try {
      await this.notifications.clear(PREFIX + id);
    } catch (err) {
      this.log.warn(`egohost: clear the notification of ask ${id}: ${err?.message ?? err}`);
    }
  }
}

/** sameAsk reports whether two asks of one id say the same: agent, act and kind. */
function sameAsk(a, b) {
  return a.agent === b.agent && a.action === b.action && a.kind === b.kind;
}

/** askOf is the ask id of a notification id, "" when it is not an ask's. */
function askOf(notificationId) {
  return typeof notificationId === "string" && notificationId.startsWith(PREFIX) ? notificationId.slice(PREFIX.length) : "";
}
