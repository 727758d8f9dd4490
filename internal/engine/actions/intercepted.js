// intercepted removes the guard intercept installed on el's window and
// returns what it saw: {blocked} (blocked: the element the events hit
// instead, "" when none).
(node) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  const win = el.ownerDocument.defaultView;
  const g = win.__egohostIntercept;
  if (!g) return { blocked: "" };
  g.stop();
  delete win.__egohostIntercept;
  return g.state;
}
