// wheel turns the mouse wheel by (dx, dy) CSS pixels over (px, py) of the
// main frame's viewport in the page itself: for a hidden document (a
// background tab), where Chrome does not deliver a trusted wheel. It
// dispatches a wheel event at the element there and, unless the page
// cancels it, scrolls as the wheel would: the innermost scrolling
// ancestor first, what it cannot take going on to the next (the window's
// scrolling element last). The event is untrusted.
// It runs in the page's own world (aria.Page): document is the page's, ns null.
(document, ns, px, py, dx, dy) => {
  let t = document.elementFromPoint(px, py);
  while (t && t.shadowRoot) {
    const inner = t.shadowRoot.elementFromPoint(px, py);
    if (!inner || inner === t) break;
    t = inner;
  }
  t = t || document.scrollingElement || document.documentElement;
  const ev = new WheelEvent("wheel", {
    bubbles: true,
    cancelable: true,
    composed: true,
    view: window,
    clientX: px,
    clientY: py,
    deltaX: dx,
    deltaY: dy,
    deltaMode: 0,
  });
  if (!t.dispatchEvent(ev)) return;
  const root = document.scrollingElement || document.documentElement;
  let left = dx;
  let top = dy;
  for (let n = t; n && (left || top); n = n.parentNode || n.host) {
    if (n.nodeType !== 1 || n === root) continue;
    const st = getComputedStyle(n);
    const scrolls = (o) => o === "auto" || o === "scroll" || o === "overlay";
    if (!scrolls(st.overflowX) && !scrolls(st.overflowY)) continue;
    const x0 = n.scrollLeft;
    const y0 = n.scrollTop;
    n.scrollBy({ left, top, behavior: "instant" });
    left -= n.scrollLeft - x0;
    top -= n.scrollTop - y0;
  }
  if (left || top) window.scrollBy({ left, top, behavior: "instant" });
}
