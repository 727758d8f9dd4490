// chrome.debugger relay: attachments per tab, CDP commands, CDP events and detaches.

import { Code, WireError, classifyChromeError, messageOf } from "./errors.js";

const PROTOCOL_VERSION = "1.3";

/** ATTACH_TIMEOUT_MS bounds one chrome.debugger.attach: a tab that never answers fails the attach. */
export const ATTACH_TIMEOUT_MS = 10_000;

/**
 * RECONCILE_GRACE_MS bounds how long reconcile waits for Chrome's own answers to the commands
 * still in flight on a session it found gone, before it fails them as "may have run".
 */
export const RECONCILE_GRACE_MS = 1_000;

// NOT_ATTACHED is the `detached` reason when a command finds that Chrome no longer has our session.
export const NOT_ATTACHED = "not_attached";

// REQUESTED is the `detached` reason when the service asked for the detach (the detach op): the
// only detach the service knows of before its event, so the only one that fences nothing.
export const REQUESTED = "requested";

// FORBIDDEN_PAGE is the `detached` reason when a debugged tab went to a browser, DevTools or
// extension page (pageguard.js).
export const FORBIDDEN_PAGE = "forbidden_page";

/**
 * DebuggerRelay attaches chrome.debugger to tabs on demand and relays CDP both ways.
 *
 *   dbg   chrome.debugger (or a fake with attach, detach, sendCommand returning promises,
 *         and onEvent / onDetach with addListener)
 *   emit  sends an event to the service: emit({event: "cdp" | "detached", ...})
 *   guard () => a WireError that refuses new attaches, or null (the Stop-all switch)
 *   pages a PageGuard (pageguard.js): no attach to, and no command on, a browser, DevTools or
 *         extension page; a tab that navigates to one is detached (reason forbidden_page)
 *
 * One attachment per tab. Concurrent attaches of one tab share one chrome.debugger.attach call.
 * When Chrome detaches a tab, every command in flight on it fails with `detached` at once, the
 * service gets a `detached` event, and the first command it sends after that event (reattach)
 * attaches again.
 */
export class DebuggerRelay {
  #sessions = new Map(); // tabId → {state: "attaching" | "attached", ready: Promise, inflight: Set}
  #lastReason = new Map(); // tabId → reason of its latest detach
  #controlled = new Set(); // tabs this relay has attached to since the worker started
  // Tabs whose session ended without the service asking (Chrome detached it, something else did,
  // a command found it gone, a forbidden page, the popup, Stop all): their commands are refused
  // (never sent to Chrome) until one comes with `reattach`, which the service sets on the first
  // command it sends after it got the `detached` event. So no command sent before the service
  // knew runs on a new session behind its back (it was meant for the old one's state; refused,
  // it did not run, and the service may send it again).
  #fenced = new Set();
  // The CDP events the service said it does not read (the events.quiet op): not forwarded. Chrome
  // sends them to the extension all the same; leaving them here spares the browser, the relay and
  // the service the copies. Empty (forward everything) until the service says otherwise, and again
  // after a worker restart.
  #quiet = new Set();
  // How many Page.javascriptDialogOpening events each tab has had (sendThen's check).
  #dialogs = new Map();
  #quietLifecycle = new Set(); // Page.lifecycleEvent names, likewise

  constructor({ dbg, emit, onChange = () => {}, attachTimeoutMs = ATTACH_TIMEOUT_MS, reconcileGraceMs = RECONCILE_GRACE_MS, guard = () => null, pages = null }) {
    this.dbg = dbg;
    this.reconcileGraceMs = reconcileGraceMs;
    this.guard = guard;
    this.pages = pages;
    this.emit = emit;
    this.onChange = onChange;
    this.attachTimeoutMs = attachTimeoutMs;
  }

  /** install subscribes to chrome.debugger's events. */
  install() {
    this.dbg.onEvent.addListener((source, method, params) => this.handleEvent(source, method, params));
    this.dbg.onDetach.addListener((source, reason) => this.handleDetach(source, reason));
  }

  /** isAttached reports whether this extension holds a debugger session on the tab. */
  isAttached(tabId) {
    return this.#sessions.get(tabId)?.state === "attached";
  }

  /**
   * wasControlled reports whether this relay attached to the tab since the worker started (it may
   * have run code in the tab's document, which a detach does not undo).
   */
  wasControlled(tabId) {
    return this.#controlled.has(tabId) || this.#sessions.has(tabId);
  }

  /** forgetTab drops what is known of a closed tab. */
  forgetTab(tabId) {
    this.#controlled.delete(tabId);
    this.#dialogs.delete(tabId);
    this.pages?.forget(tabId);
  }

  /** attachedTabIds lists the tabs with a debugger session, in attach order. */
  attachedTabIds() {
    return [...this.#sessions].filter(([, s]) => s.state === "attached").map(([tabId]) => tabId);
  }

  /** attach attaches to the tab unless already attached; resolves {attached: true, already}. */
  async attach(tabId) {
    const existing = this.#sessions.get(tabId);
    if (existing) {
      await existing.ready;
      this.#check(tabId, existing);
      return { attached: true, already: true };
    }
    const refused = this.guard();
    if (refused) throw refused;
    const session = { state: "attaching", ready: null, inflight: new Set() };
    session.ready = Promise.resolve()
      .then(() => this.pages?.checkAttach(tabId))
      .then(() => this.#attachWithin(tabId))
      .then(
        () => {
          if (this.#sessions.get(tabId) === session) {
            session.state = "attached";
            this.#controlled.add(tabId);
            this.#lastReason.delete(tabId);
            this.onChange();
          }
        },
        (err) => {
          if (this.#sessions.get(tabId) === session) this.#sessions.delete(tabId);
          throw attachError(tabId, err);
        },
      );
    this.#sessions.set(tabId, session);
    await session.ready;
    this.#check(tabId, session);
    return { attached: true, already: false };
  }

  // #attachWithin runs chrome.debugger.attach, failing after attachTimeoutMs. An attach that
  // succeeds after its caller gave up is undone, so no session is left that nobody tracks.
  #attachWithin(tabId) {
    const attach = Promise.resolve().then(() => this.dbg.attach({ tabId }, PROTOCOL_VERSION));
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(() => {
        attach.then(
          () => this.dbg.detach({ tabId }).catch(() => {}),
          () => {},
        );
        reject(new Error(`attaching to tab ${tabId} took over ${this.attachTimeoutMs} ms`));
      }, this.attachTimeoutMs);
    });
    return Promise.race([attach, expired]).finally(() => clearTimeout(timer));
  }

  // #check fails when the session went away while the caller waited for it.
  #check(tabId, session) {
    if (this.#sessions.get(tabId) !== session) throw this.#detachedError(tabId);
  }

  /**
   * detach ends our session on the tab, fails its commands in flight, and emits `detached`
   * with the given reason. Detaching a tab we are not attached to succeeds.
   */
  async detach(tabId, reason = REQUESTED) {
    const session = this.#sessions.get(tabId);
    if (!session) return { detached: true };
    try {
      await session.ready;
    } catch {
      return { detached: true }; // the attach failed: nothing to detach
    }
    try {
      await this.dbg.detach({ tabId });
    } catch (err) {
      const kind = classifyChromeError(messageOf(err)).kind;
      if (kind !== "not_attached" && kind !== "no_tab") throw new WireError(Code.internal, `detach tab ${tabId}: ${messageOf(err)}`);
    }
    this.#drop(tabId, session, reason);
    return { detached: true };
  }

  /** detachAll detaches every tab this relay attached (or is attaching), with the given reason. */
  async detachAll(reason) {
    await Promise.allSettled([...this.#sessions.keys()].map((tabId) => this.detach(tabId, reason)));
  }

  /**
   * send runs one CDP command on the tab (or on a flattened child session of it), attaching
   * first if needed, and resolves Chrome's result object. reattach lifts the tab's fence (see
   * #fenced): the service knows of the detach that set it.
   */
  async send(tabId, method, params, sessionId, reattach = false) {
    if (this.#fenced.has(tabId)) {
      const stopped = this.guard(); // Stop all says so, rather than a detach the service will retry
      if (stopped) throw stopped;
      if (!reattach) throw this.#detachedError(tabId, { refused: true });
      this.#fenced.delete(tabId);
    }
    await this.attach(tabId);
    const session = this.#sessions.get(tabId);
    if (!session) throw this.#detachedError(tabId);
    this.pages?.checkSend(tabId, sessionId);
    const target = sessionId === undefined ? { tabId } : { tabId, sessionId };
    return new Promise((resolve, reject) => {
      const entry = { reject, answered: null }; // answered: settles when Chrome has answered
      session.inflight.add(entry);
      entry.answered = Promise.resolve()
        .then(() => this.dbg.sendCommand(target, method, params ?? {}))
        .then(
          (result) => resolve(result ?? {}),
          (err) => {
            session.inflight.delete(entry); // its own error, not the drop's
            reject(this.#commandError(tabId, session, method, err));
          },
        )
        .finally(() => session.inflight.delete(entry));
    });
  }

  /**
   * sendThen sends a command as send does and, as soon as Chrome has answered it, a second one
   * (then: {method, params?}) on the same session: a mouse press and its release, with no round
   * trip to the service between them (the page would run its timers there, and a layout shift
   * then puts the release on another element). Not when Chrome reported a JavaScript dialog on
   * the tab meanwhile (the press opened one): a person's release does not reach a page behind a
   * dialog, so the second is not sent. Returns {result, then} or {result, skipped: "dialog"}; a
   * failure of the second throws its error with then: true.
   */
  async sendThen(tabId, method, params, sessionId, reattach, then) {
    if (typeof then?.method !== "string" || (then.params !== undefined && (then.params === null || typeof then.params !== "object" || Array.isArray(then.params)))) {
      throw new WireError(Code.badRequest, "then must be {method: string, params?: object}");
    }
    const dialogs = this.#dialogs.get(tabId) ?? 0;
    const result = await this.send(tabId, method, params, sessionId, reattach);
    if ((this.#dialogs.get(tabId) ?? 0) !== dialogs) return { result, skipped: "dialog" };
    try {
      return { result, then: await this.send(tabId, then.method, then.params, sessionId) };
    } catch (err) {
      if (err instanceof WireError) err.extra = { ...err.extra, then: true };
      throw err;
    }
  }

  /**
   * reconcile ends, like any detach, the sessions Chrome no longer has: something other than this
   * relay detached them, and Chrome sends no onDetach for that. chrome.debugger.getTargets tells
   * whether any debugger is attached to a tab; a session attached before the question and not
   * attached in the answer is gone.
   */
  async reconcile() {
    const before = [...this.#sessions].filter(([, s]) => s.state === "attached");
    if (before.length === 0 || typeof this.dbg.getTargets !== "function") return;
    let targets;
    try {
      targets = await this.dbg.getTargets();
    } catch {
      return; // no answer: nothing learned
    }
    const live = new Set(targets.filter((t) => t.attached && typeof t.tabId === "number").map((t) => t.tabId));
    const gone = before.filter(([tabId, session]) => !live.has(tabId) && this.#sessions.get(tabId) === session);
    await Promise.all(
      gone.map(async ([tabId, session]) => {
        // Chrome answers each command still in flight on a gone session itself, and precisely:
        // "not attached" (it did not run: that answer drops the session as refused, and the
        // service sends the command again on a new one) or "detached while handling" (it may
        // have run). Failing them here instead would say "may have run" of commands that never
        // ran, so their answers are waited for, within reconcileGraceMs.
        if (session.inflight.size > 0) await settledWithin([...session.inflight].map((e) => e.answered), this.reconcileGraceMs);
        if (this.#sessions.get(tabId) === session) this.#drop(tabId, session, NOT_ATTACHED);
      }),
    );
  }

  /**
   * setQuiet replaces the set of CDP events not forwarded: those methods, and the Page.lifecycleEvent
   * events of those names. The pageguard sees every event all the same. Returns {quiet: n}, the
   * number of entries now quiet.
   */
  setQuiet(methods, lifecycle) {
    this.#quiet = new Set(methods);
    this.#quietLifecycle = new Set(lifecycle);
    return { quiet: this.#quiet.size + this.#quietLifecycle.size };
  }

  /** handleEvent forwards a chrome.debugger.onEvent as a `cdp` event. */
  handleEvent(source, method, params) {
    if (typeof source?.tabId !== "number") return;
    if (this.pages?.noteEvent(source, method, params)) this.detach(source.tabId, FORBIDDEN_PAGE).catch(() => {});
    if (method === "Page.javascriptDialogOpening") this.#dialogs.set(source.tabId, (this.#dialogs.get(source.tabId) ?? 0) + 1);
    if (this.#quiet.has(method) || (method === "Page.lifecycleEvent" && this.#quietLifecycle.has(params?.name))) return;
    const event = { event: "cdp", tabId: source.tabId };
    if (source.sessionId !== undefined) event.sessionId = source.sessionId;
    event.method = method;
    event.params = params ?? {};
    this.emit(event);
  }

  /** handleDetach handles chrome.debugger.onDetach: Chrome ended our session on a tab. */
  handleDetach(source, reason) {
    const tabId = source?.tabId;
    if (typeof tabId !== "number") return;
    const session = this.#sessions.get(tabId);
    if (session) {
      this.#drop(tabId, session, reason);
    } else {
      this.#lastReason.set(tabId, reason);
      this.emit({ event: "detached", tabId, reason });
    }
  }

  // #drop ends a session and fails its commands in flight. refused says that Chrome refused a
  // command because the session was already gone: then every command in flight on it was sent
  // after the session went (Chrome answers a command it was running when the session went first,
  // with "Detached while handling command.", and that drop is not refused), so none of them ran
  // either, and the event says so. Unless the service asked for the detach, the tab is fenced
  // until the service has heard (#fenced).
  #drop(tabId, session, reason, refused = false) {
    if (this.#sessions.get(tabId) === session) this.#sessions.delete(tabId);
    this.pages?.forget(tabId); // the next attach looks again
    this.#lastReason.set(tabId, reason);
    const err = this.#detachedError(tabId, refused ? { refused: true } : {});
    for (const entry of session.inflight) entry.reject(err);
    session.inflight.clear();
    const event = { event: "detached", tabId, reason };
    if (refused) event.refused = true;
    if (reason !== REQUESTED) this.#fenced.add(tabId);
    this.emit(event);
    this.onChange();
  }

  /** unfenceAll lifts every fence: a new service link (hello) knows nothing of earlier detaches. */
  unfenceAll() {
    this.#fenced.clear();
  }

  #detachedError(tabId, extra = {}) {
    const reason = this.#lastReason.get(tabId) ?? NOT_ATTACHED;
    return new WireError(Code.detached, `debugger detached from tab ${tabId} (${reason})`, { reason, ...extra });
  }

  #commandError(tabId, session, method, err) {
    const message = messageOf(err);
    const c = classifyChromeError(message);
    switch (c.kind) {
      case "cdp": {
        const extra = c.cdpCode === undefined ? {} : { cdpCode: c.cdpCode };
        return new WireError(Code.cdpError, c.message, extra);
      }
      case "not_attached":
        // Chrome no longer has our session, whatever we thought (something other than this relay
        // detached it, and Chrome sends no onDetach for that): end it the way every detach ends,
        // so the service and its subscribers hear `detached`, and the next command re-attaches.
        // refused: Chrome refused this command (it did not run), so the service may send it again.
        if (this.#sessions.get(tabId) === session) this.#drop(tabId, session, NOT_ATTACHED, c.refused === true);
        return this.#detachedError(tabId, c.refused ? { refused: true } : {});
      case "no_tab":
        return new WireError(Code.noTab, `no tab with id ${tabId}`);
      default:
        return new WireError(Code.cdpError, `${method}: ${message}`);
    }
  }
}

// settledWithin resolves when every promise has settled, or after ms, whichever comes first.
function settledWithin(promises, ms) {
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([Promise.allSettled(promises), expired]).finally(() => clearTimeout(timer));
}

function attachError(tabId, err) {
  if (err instanceof WireError) return err;
  const message = messageOf(err);
  switch (classifyChromeError(message).kind) {
    case "already_attached":
      return new WireError(Code.alreadyAttached, message);
    case "no_tab":
      return new WireError(Code.noTab, `no tab with id ${tabId}`);
    default:
      return new WireError(Code.attachFailed, message);
  }
}
