// What the popup shows: the worker's status turned into plain words, dot colours and hints.
// Pure functions, so they run under node --test.

/**
 * nativeHint explains chrome.runtime.lastError's text after the native port closed. The texts
 * are Chromium's, as measured with Chromium 156.
 */
export function nativeHint(lastError) {
  const e = String(lastError ?? "");
  if (/native messaging host not found/i.test(e)) {
    return "Chrome found no host manifest for com.egohost.host. Run `egohost install`, then press Reconnect now.";
  }
  if (/access to the specified native messaging host is forbidden/i.test(e) || /^access .*forbidden/i.test(e)) {
    return "The host manifest does not allow this extension ID. Re-run `egohost install` (its allowed_origins must name the ID below).";
  }
  if (/native host has exited/i.test(e)) {
    return "The egohost host crashed or is not executable. Check the path in its manifest, and Chrome's stderr for its log.";
  }
  if (/error when communicating with the native messaging host/i.test(e)) {
    return "The host sent a malformed or oversized (over 1 MiB) frame. Update egohost.";
  }
  if (/nativeMessaging/i.test(e) && /permission/i.test(e)) {
    return "The extension lacks the nativeMessaging permission.";
  }
  return "";
}

/** formatSeconds renders a delay in milliseconds as "0.5 s", "12 s". */
export function formatSeconds(ms) {
  const s = Math.max(0, ms) / 1000;
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/**
 * describeStatus turns the worker's status (see statusSnapshot in background.js; null when the
 * worker has not answered) into what the popup shows. Dots are "green", "amber", "red" or "grey".
 */
export function describeStatus(status, now = Date.now()) {
  if (!status || typeof status !== "object") {
    return {
      native: { dot: "grey", state: "no status yet (waiting for the service worker)" },
      relay: { dot: "grey", state: "unknown" },
      welcome: null,
      attached: [],
      automation: { dot: "grey", state: "unknown" },
    };
  }
  const native = status.native ?? {};
  const view = { native: {}, relay: {}, welcome: null, attached: Array.isArray(status.attached) ? status.attached : [] };

  if (native.connected && native.hostSeen) {
    view.native = { dot: "green", state: "connected" };
  } else if (native.connected) {
    view.native = { dot: "amber", state: "starting the host…" };
  } else {
    view.native = { dot: "red", state: "not connected" };
    if (native.lastError) {
      view.native.error = native.lastError;
      view.native.hint = nativeHint(native.lastError);
    }
    if (native.nextRetryAt) {
      const attempt = native.attempts ? ` (attempt ${native.attempts + 1})` : "";
      view.native.retry = `Retrying in ${formatSeconds(native.nextRetryAt - now)}${attempt}.`;
    }
  }

  const relay = status.relay;
  if (!native.connected) {
    view.relay = { dot: "grey", state: "unknown (no native host)" };
  } else if (!relay) {
    view.relay = { dot: "amber", state: "waiting for the relay…" };
  } else if (relay.state === "connected") {
    view.relay = status.welcome
      ? { dot: "green", state: "connected" }
      : { dot: "amber", state: "reachable, waiting for welcome…" };
    if (relay.socket) view.relay.socket = relay.socket;
  } else if (relay.state === "service_down") {
    view.relay = { dot: "red", state: "not running (service_down)", error: relay.error || "(no error text)" };
    if (typeof relay.retryMs === "number") {
      const at = (relay.at ?? now) + relay.retryMs;
      view.relay.detail = at > now ? `The relay retries in ${formatSeconds(at - now)}.` : "The relay is retrying.";
    }
    view.relay.hint =
      "The host runs, but no egohost service answers on its socket. Start it with `egohost serve` (or `egohost install` to run it as a user service); this browser reconnects by itself.";
  } else {
    view.relay = { dot: "amber", state: String(relay.state) };
  }
  if (status.automationStopped) {
    // The note at the top of every panel says what it means and how to switch it back on.
    view.automation = { dot: "red", state: "stopped" };
  } else {
    view.automation = { dot: "green", state: "on" };
  }

  const w = status.welcome;
  if (w) {
    view.welcome = {
      browser: w.browserId ?? "",
      version: w.serviceVersion ?? "",
      pid: w.servicePid === undefined ? "" : String(w.servicePid),
    };
  }
  return view;
}

/**
 * agentsView is the "Agents connect" block: where agents connect and where the token lives, from
 * popup.status's result; null when the service has not answered.
 */
export function agentsView(info) {
  if (!info || typeof info !== "object") return null;
  return {
    endpoint: info.endpoint ?? "",
    tokenFile: info.tokenFile ?? "",
    browser: info.browser ?? "",
    hint: "Agents and the CLI read the token from that file (owner-only). `egohost mcp` gives MCP clients the same access.",
  };
}
