// intercepted removes the guard intercept installed on el's window and
// returns what it saw: {blocked, seen} (blocked: the element the events hit
// instead, "" when none).
(node) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  const win = el.ownerDocument.defaultView;
  const g = win.__egohostIntercept;
  if (!g) return { blocked: "", seen: 0 };
  g.stop();
  delete win.__egohostIntercept;
  return g.state;
}
