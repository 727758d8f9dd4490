// intercept guards a pointer action on el: until it is read back, when
// the first trusted pointer or mouse event of the element's window has a
// target that is not the element (or inside it, inside its enclosing
// button or link, or a label of it), that event and every one after it
// are stopped before the page sees them, and the target is recorded. So
// a click that lands on something that slid over the element between the
// checks and the click (a banner, a viewport that shrank) changes
// nothing, and the action retries. o = {retarget}.
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
  const state = { blocked: "" };
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  // The first event decides, as in Playwright: once the press landed on
  // the element, the events after it are the page's own business, even
  // when the press changed what is under the mouse (Gutenberg's block
  // appender adds a block in its place on focus, a button turns into a
  // spinner). Stopping them would leave a half click, and a retry would
  // press again.
  let landed = false;
  const handler = (e) => {
    if (!e.isTrusted || landed) return;
    const t = e.composedPath()[0];
    if (!state.blocked && accepts(t)) {
      landed = true;
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
    if (!state.blocked) state.blocked = describe(t.nodeType === 1 ? t : t.parentElement);
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
