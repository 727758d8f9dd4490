// observe starts the settle's watch on el's document when an action is
// about to act on it (in the same call as the checks): the DOM mutations
// from then on (in the element's document, and the top document when it is
// reachable), whether a navigation to another document began, and the
// first animation frame after the action's events. settle.js
// reads it, and ends it when its cap has passed since it last answered (a
// later round of the same settle reads it again); it ends by itself after
// 30 s, or when another action's watch starts. mutation is mutation.js:
// which mutations count, and what they touched.
(node, ns, mutation, final) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  if (!el) return;
  const win = el.ownerDocument.defaultView;
  if (win.__egohostSettle) win.__egohostSettle.stop();
  // track: what the mutations since the action touched, whose short
  // animations settle.js waits for (mutation.js).
  const track = mutation();
  // since: the timeline's time, for the animations started from now on
  // (mutation.js; less a ms: the page reads it coarsened).
  const s = { start: performance.now(), last: -1, mutations: 0, navigating: false, track };
  s.since = (win.document.timeline.currentTime ?? s.start) - 1;
  const obs = new MutationObserver((records) => {
    const n = track.note(records);
    if (n === 0) return;
    s.last = performance.now();
    s.mutations += n;
  });
  const opts = { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true };
  obs.observe(el.ownerDocument, opts);
  const wins = [win];
  try {
    if (win.top !== win && win.top.document) {
      obs.observe(win.top.document, opts);
      wins.push(win.top);
    }
  } catch {
    // a cross-origin top: its own document is out of reach
  }
  const onNavigate = (e) => {
    if (!e.destination || !e.destination.sameDocument) s.navigating = true;
  };
  for (const w of wins) if (w.navigation) w.navigation.addEventListener("navigate", onNavigate);
  // The action's own events, as the page sees them: after the last one,
  // one animation frame and the tasks after it (what settle.js waits for)
  // are asked for here, so a frame that comes between the action and the
  // settle's call counts. seq counts the events; done is the count a
  // frame and its tasks came after; final says one of the events the
  // page sees last of the action (final: their types) came. Settled when
  // final and done === seq. Two task hops after the frame: the second
  // comes after every timer the frame's other callbacks set (the page's
  // run after this one, asked for later). waiting is settle.js's resolve
  // while it waits for that. A page that stops the action's last events
  // before this listener (its own capture listener on the window, added
  // earlier) leaves final unset: settle.js waits its own frame, as before.
  const finals = new Set(final || []);
  s.seq = 0;
  s.done = 0;
  s.final = false;
  s.waiting = null;
  let asked = false;
  const onAction = (e) => {
    s.seq++;
    if (finals.has(e.type)) s.final = true;
    if (asked || win.document.hidden) return; // a hidden document runs no frames: settle.js's own wait
    asked = true;
    win.requestAnimationFrame(() => {
      asked = false; // an event after this frame asks for the next
      const seq = s.seq; // every event so far came before this frame's callbacks
      win.setTimeout(() => win.setTimeout(() => {
        if (seq > s.done) s.done = seq;
        if (s.final && s.done === s.seq && s.waiting) s.waiting();
      }, 0), 0);
    });
  };
  const actionEvents = [
    "pointerdown", "pointerup", "pointermove", "mousedown", "mouseup", "mousemove", "click", "dblclick",
    "auxclick", "contextmenu", "keydown", "keyup", "keypress", "beforeinput", "input", "change", "wheel",
    "dragstart", "dragend", "drop", "touchstart", "touchend",
  ];
  const listen = { capture: true, passive: true };
  for (const t of actionEvents) win.addEventListener(t, onAction, listen);
  let stopped = false;
  let timer = 0;
  s.stop = () => {
    if (stopped) return;
    stopped = true;
    obs.disconnect();
    win.clearTimeout(timer);
    for (const t of actionEvents) win.removeEventListener(t, onAction, listen);
    s.waiting = null;
    track.clear();
    for (const w of wins) if (w.navigation) w.navigation.removeEventListener("navigate", onNavigate);
    if (win.__egohostSettle === s) delete win.__egohostSettle;
  };
  timer = win.setTimeout(s.stop, 30000);
  // expire ends the watch ms from now (settle.js: a later round of the
  // same settle comes within its cap).
  s.expire = (ms) => {
    if (stopped) return;
    win.clearTimeout(timer);
    timer = win.setTimeout(s.stop, ms);
  };
  s.wins = wins;
  win.__egohostSettle = s;
}
