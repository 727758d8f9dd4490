// intercepted removes the guard intercept installed on el's window and
// returns what it saw: {blocked, split} (blocked: the element the events
// hit instead, "" when none; split: the element the release hit when the
// press landed and the release did not).
(node) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  const win = el.ownerDocument.defaultView;
  const g = win.__egohostIntercept;
  if (!g) return { blocked: "", split: "" };
  g.stop();
  delete win.__egohostIntercept;
  return g.state;
}
