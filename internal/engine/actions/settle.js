// settle waits, after an action on el, for what the action set off in
// the page, with the watch observe.js started before the action. First one
// animation frame and a task after it: the work the action scheduled for
// now (microtasks, setTimeout(0), animation frames) has run. The frame is
// the first after the action's last event when the watch saw its events
// (it may have come before this call: then there is nothing to wait for),
// else the first after this call begins, whichever comes first. When nothing
// mutated the DOM since the action began and no navigation began, it is
// done (early): nothing was set off. Otherwise something is going on, and
// it waits until the DOM has gone quietMs without a mutation, counted from
// the last mutation since the action began (the action itself when none),
// or capMs. The quiet includes the short animations (a CSS transition or
// animation ending within a second) of the elements the page added or
// changed since the action, and of what is inside them (mutation.js): a
// page may wait for one to end before it goes on (Bootstrap shows a modal
// once its backdrop has faded in, 150 ms after the click), so it waits
// for them to end too, and then for the quiet again (animated: it did).
// It resolves {quiet, early, caught, animated, mutations, ms, navigating}
// (caught: the frame after the action's events had come before this
// call), or {missing: true} when no watch was started.
//
// again: a later round of the same settle (after the requests the action
// started, or the documents it loaded into frames, were waited for): no
// first frame; the quiet counts from this call or the last mutation,
// whichever is later (the page may still be handling an answer), and the
// animations are still those of everything changed since the action, so
// what an answer added before this call is waited for too. The watch is
// kept for capMs after each answer, for such a round.
//
// A hidden document (a background tab) runs no animation frames and its
// timers wait for Chrome's 1 s wake-ups: there the frame is a task
// (MessageChannel), and instead of waiting it resolves at once
// {pending: true, since} (since: ms since the last mutation), keeping the
// watch; the caller waits and calls again with poll set (no first frame),
// until it resolves {quiet: true}.
async (node, ns, quietMs, capMs, poll, again) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  const win = (el || node).ownerDocument.defaultView;
  const s = win && win.__egohostSettle;
  if (!s) return { missing: true };
  const hidden = !!win.document.hidden;
  // A visible document whose frame has not come in this long paints
  // nothing: go on without it. Not shorter: on a busy machine a frame can
  // come 100 ms late, and the settle then ended before the page's handler
  // of the frame ran (a fade-out's end, under two busy cores).
  const noFrameMs = 500;
  if (!poll) {
    s.begin = performance.now();
    s.from = again ? s.begin : s.start;
  }
  const begin = s.begin || performance.now();
  const from = s.from === undefined ? s.start : s.from;
  try {
    if (!poll && !again) {
      const caught = s.final === true && s.done === s.seq; // the frame after the action's last events came
      if (!caught) await new Promise((resolve) => {
        let done = false;
        const next = () => {
          if (!done) {
            done = true;
            s.waiting = null;
            win.setTimeout(resolve, 0);
          }
        };
        // The frame after the action's last events, and its tasks, came (observe.js).
        s.waiting = () => {
          if (!done) {
            done = true;
            s.waiting = null;
            resolve();
          }
        };
        if (hidden) {
          const ch = new win.MessageChannel();
          ch.port1.onmessage = next;
          ch.port2.postMessage(0);
          return;
        }
        win.requestAnimationFrame(next);
        win.setTimeout(next, noFrameMs);
      });
      if (s.last < 0 && !s.navigating) {
        return { quiet: true, early: true, caught, mutations: s.mutations, ms: performance.now() - begin };
      }
    }
    let animated = false;
    let ended = false; // the animations seen have ended, and a frame has passed since
    for (;;) {
      const now = performance.now();
      const since = now - Math.max(s.last, from);
      // A hidden document runs no frames: its animations wait for it.
      const anim = since >= quietMs && !hidden ? s.track.animating(s.wins.map((w) => w.document), s.since ?? s.start) : 0;
      if (anim > 0) {
        animated = true;
        ended = false;
      }
      if (since >= quietMs && anim <= 0 && animated && !ended && now - begin < capMs) {
        // An animation that has just ended sends its end event in the
        // next frame, and the page acts on it then (Bootstrap removes a
        // modal once it has faded out): one frame and a task, then the
        // quiet is looked at again.
        ended = true;
        await new Promise((resolve) => {
          let done = false;
          const next = () => {
            if (!done) {
              done = true;
              win.setTimeout(resolve, 0);
            }
          };
          win.requestAnimationFrame(next);
          win.setTimeout(next, noFrameMs);
        });
        continue;
      }
      if (since >= quietMs && anim <= 0 || now - begin >= capMs) {
        return { quiet: since >= quietMs && anim <= 0, animated, mutations: s.mutations, ms: now - begin, navigating: s.navigating };
      }
      if (hidden || poll) {
        return { pending: true, since, mutations: s.mutations, ms: now - begin, navigating: s.navigating };
      }
      const wait = anim > 0 ? anim : quietMs - since;
      await new Promise((resolve) =>
        win.setTimeout(resolve, Math.max(5, Math.min(wait, capMs - (now - begin)))),
      );
    }
  } finally {
    s.expire(capMs);
  }
}
