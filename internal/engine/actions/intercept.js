// intercept guards a pointer action on el: until it is read back, the
// trusted pointer and mouse events of the element's window whose target is
// not the element (or inside it, inside its enclosing button or link, or a
// label of it) are stopped before the page sees them, and the first such
// target is recorded. So a click that lands on something that slid over
// the element between the checks and the click (a banner, a viewport that
// shrank) changes nothing, and the action retries. o = {retarget}.
// describe (aria.WithDescribe: describe.js) is in scope.
(node, ns, o) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  if (!el) return;
  let expect = el;
  if (o.retarget === "button") {
    const b = el.closest("button, a, [role=button], [role=link]");
    if (b) expect = b;
  }
  const win = el.ownerDocument.defaultView;
  const inside = (n) => {
    for (; n; n = n.parentNode || n.host) if (n === expect) return true;
    return false;
  };
  const accepts = (t) => {
    if (inside(t)) return true;
    const label = t && t.closest ? t.closest("label") : null;
    return !!(label && label.control === expect);
  };
  if (win.__egohostIntercept) win.__egohostIntercept.stop(); // one left by an action a dialog cut short
  const state = { blocked: "", seen: 0 };
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  const handler = (e) => {
    if (!e.isTrusted) return;
    state.seen++;
    const t = e.composedPath()[0];
    if (!accepts(t)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      if (!state.blocked) state.blocked = describe(t.nodeType === 1 ? t : t.parentElement);
    }
  };
  for (const t of types) win.addEventListener(t, handler, true);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const t of types) win.removeEventListener(t, handler, true);
  };
  win.__egohostIntercept = { state, stop };
  win.setTimeout(stop, 1000); // never left behind (a click takes milliseconds)
}
