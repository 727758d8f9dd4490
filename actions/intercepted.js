// intercepted removes the guard intercept installed on `this`'s window and
// returns what it saw: {blocked, seen} (blocked: the element the events hit
// instead, "" when none).
function intercepted() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const win = el.ownerDocument.defaultView;
  const g = win.__egohostIntercept;
  if (!g) return { blocked: "", seen: 0 };
  g.stop();
  delete win.__egohostIntercept;
  return g.state;
}
