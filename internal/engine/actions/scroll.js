// scrolled reports the scroll positions under a point of the main frame's
// viewport (the window and every scrolling ancestor of the element there).
// With `before` (an earlier report) it waits, up to waitMs, for them to
// change and then to hold still for two frames (frames in which the
// document's timeline moved on). It returns {key, x, y}: key
// fingerprints the positions, x and y are the window's scroll position,
// hidden says the document is hidden (a background tab: no animation
// frames, so a frame is a task there).
// It runs in the page's own world (aria.Page): document is the page's, ns null.
async (document, ns, px, py, before, waitMs) => {
  const hidden = document.hidden;
  const snap = () => {
    const parts = [window.scrollX, window.scrollY];
    for (let n = document.elementFromPoint(px, py); n; n = n.parentElement) {
      if (n.scrollHeight > n.clientHeight || n.scrollWidth > n.clientWidth) parts.push(n.scrollLeft, n.scrollTop);
    }
    return parts.join(",");
  };
  const frame = () =>
    new Promise((resolve) => {
      if (hidden) {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => resolve();
        ch.port2.postMessage(0);
        return;
      }
      requestAnimationFrame(() => resolve());
      setTimeout(resolve, 50);
    });
  let key = snap();
  if (before !== null) {
    const start = performance.now();
    while (key === before && performance.now() - start < waitMs) {
      await frame();
      key = snap();
    }
    // A frame counts as still only when the document's timeline moved on
    // since the last read: a third of the frames run at the time a read
    // between frames saw, and then no scrolling moved either.
    const time = () => (document.timeline && typeof document.timeline.currentTime === "number" ? document.timeline.currentTime : null);
    let t = time();
    for (let still = 0; still < 2 && performance.now() - start < waitMs; ) {
      await frame();
      const k = snap();
      const now = time();
      if (k !== key) still = 0;
      else if (hidden || t === null || now > t) still++;
      key = k;
      t = now;
    }
  }
  return { key, x: window.scrollX, y: window.scrollY, hidden };
}
