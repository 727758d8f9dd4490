// hover moves the mouse to (x, y) of el's frame viewport in the page
// itself: for a hidden document (a background tab), where Chrome answers a
// trusted mouse move only after an animation frame, which never comes. It
// dispatches what Chrome does for a mouse move: pointerout/pointerleave and
// mouseout/mouseleave to the element the mouse left (the one this script
// last moved to), pointerover/pointerenter and mouseover/mouseenter to the
// element under the point, then pointermove and mousemove there (over, out
// and move bubble; enter and leave go to each element entered or left,
// outermost first for enter). The events are untrusted, and :hover styles
// do not follow. It returns true.
(node, ns, x, y) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  let t = doc.elementFromPoint(x, y);
  while (t && t.shadowRoot) {
    const inner = t.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === t) break;
    t = inner;
  }
  if (!t) t = el;
  const ref = win.__egohostHover;
  let prev = ref && ref.deref();
  if (prev && !prev.isConnected) prev = null;
  const chain = (n) => {
    const out = [];
    for (; n; n = n.parentNode || n.host) if (n.nodeType === 1) out.push(n);
    return out;
  };
  const base = {
    view: win,
    clientX: x,
    clientY: y,
    screenX: win.screenX + x,
    screenY: win.screenY + y,
    composed: true,
  };
  const fire = (n, type, bubbles, related) => {
    const init = { ...base, bubbles, cancelable: bubbles, relatedTarget: related || null };
    const ev = type.startsWith("pointer")
      ? new win.PointerEvent(type, { ...init, pointerId: 1, pointerType: "mouse", isPrimary: true })
      : new win.MouseEvent(type, init);
    n.dispatchEvent(ev);
  };
  if (prev !== t) {
    const to = chain(t);
    const from = prev ? chain(prev) : [];
    const left = from.filter((n) => !to.includes(n));
    const entered = to.filter((n) => !from.includes(n)).reverse();
    for (const kind of ["pointer", "mouse"]) {
      if (prev) {
        fire(prev, kind + "out", true, t);
        for (const n of left) fire(n, kind + "leave", false, t);
      }
      fire(t, kind + "over", true, prev);
      for (const n of entered) fire(n, kind + "enter", false, prev);
    }
  }
  fire(t, "pointermove", true);
  fire(t, "mousemove", true);
  win.__egohostHover = new win.WeakRef(t);
  return true;
}
