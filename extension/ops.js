// The op handlers of PROTOCOL.md §2.1, built over the debugger relay and the tab ops.

import { echoResult } from "./dispatch.js";

/** buildHandlers returns the handler of every op, for a Dispatcher. */
export function buildHandlers({ relay, tabOps, groupOps, downloadOps }) {
  return {
    ping: async () => ({ pong: true }),
    cdp: (req) =>
      req.then === undefined
        ? relay.send(req.tabId, req.method, req.params, req.sessionId, req.reattach === true)
        : relay.sendThen(req.tabId, req.method, req.params, req.sessionId, req.reattach === true, req.then),
    attach: async (req) => {
      if (!relay.isAttached(req.tabId)) await tabOps.get(req.tabId); // no_tab before attach_failed
      return relay.attach(req.tabId);
    },
    detach: async (req) => {
      if (!relay.isAttached(req.tabId)) await tabOps.get(req.tabId); // no_tab for an unknown tab
      return relay.detach(req.tabId);
    },
    "tabs.list": async () => {
      await relay.reconcile(); // `attached` must be the truth, also after a detach Chrome did not report
      return tabOps.list();
    },
    "tabs.focused": () => tabOps.focused(),
    "tabs.open": (req) => tabOps.open({ url: req.url, active: req.active ?? true, windowId: req.windowId, newWindow: req.newWindow }),
    "tabs.close": (req) => tabOps.close(req.tabId),
    "tabs.activate": (req) => tabOps.activate(req.tabId, { noFocus: req.noFocus }),
    echo: async (req) => echoResult(req.data),
    "groups.add": (req) => groupOps.add(req),
    "groups.update": (req) => groupOps.update(req),
    "groups.list": () => groupOps.list(),
    "downloads.discard": (req) => downloadOps.discard(req.downloadId),
    "events.quiet": async (req) => relay.setQuiet(req.methods, req.lifecycle),
  };
}
