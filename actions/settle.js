// settle waits, after an action on `this`, for what the action set off in
// the page, with the watch observe.js started before the action. First one
// animation frame and a task after it: the work the action scheduled for
// now (microtasks, setTimeout(0), animation frames) has run. When nothing
// mutated the DOM since the action began and no navigation began, it is
// done (early): nothing was set off. Otherwise something is going on, and
// it waits until the DOM has gone quietMs without a mutation, counted from
// the last mutation since the action began (the action itself when none),
// or capMs. It resolves {quiet, early, mutations, ms, navigating}, or
// {missing: true} when no watch was started.
async function settle(quietMs, capMs) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const win = (el || this).ownerDocument.defaultView;
  const s = win && win.__egohostSettle;
  if (!s) return { missing: true };
  const begin = performance.now();
  try {
    await new Promise((resolve) => {
      let done = false;
      const next = () => {
        if (!done) {
          done = true;
          win.setTimeout(resolve, 0);
        }
      };
      win.requestAnimationFrame(next);
      win.setTimeout(next, 100); // a background tab runs no animation frames
    });
    if (s.last < 0 && !s.navigating) {
      return { quiet: true, early: true, mutations: s.mutations, ms: performance.now() - begin };
    }
    for (;;) {
      const now = performance.now();
      const since = now - Math.max(s.last, s.start);
      if (since >= quietMs || now - begin >= capMs) {
        return { quiet: since >= quietMs, mutations: s.mutations, ms: now - begin, navigating: s.navigating };
      }
      await new Promise((resolve) =>
        win.setTimeout(resolve, Math.max(5, Math.min(quietMs - since, capMs - (now - begin)))),
      );
    }
  } finally {
    s.stop();
  }
}
