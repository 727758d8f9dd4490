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
  const state = { blocked: "", split: "" };
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  // The first event decides, as in Playwright: once the press landed on
  // the element, the events after it are the page's own business, even
  // when the press changed what is under the mouse (Gutenberg's block
  // appender adds a block in its place on focus, a button turns into a
  // spinner). Stopping them would leave a half click, and a retry would
  // press again.
  // The release is recorded (split) when it lands elsewhere: the press
  // went to the element and the page saw no click of it (a layout shift
  // between the two moved it away). A check that verifies its state can
  // then retry; a click cannot tell, and leaves it to the page.
  let landed = false;
  const handler = (e) => {
    if (!e.isTrusted) return;
    const t = e.composedPath()[0];
    if (landed) {
      if (e.type === "mouseup" && !state.split && !accepts(t)) state.split = describe(t.nodeType === 1 ? t : t.parentElement);
      return;
    }
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
