// observe starts the settle's watch on el's document when an action is
// about to act on it (in the same call as the checks): the DOM mutations
// from then on (in the element's document, and the top document when it is
// reachable) and whether a navigation to another document began. settle.js
// reads and ends it; it ends by itself after 30 s. mutation is mutation.js:
// which mutations count.
(node, ns, mutation) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  if (!el) return;
  const win = el.ownerDocument.defaultView;
  if (win.__egohostSettle) win.__egohostSettle.stop();
  const s = { start: performance.now(), last: -1, mutations: 0, navigating: false };
  const counts = mutation();
  const obs = new MutationObserver((records) => {
    const n = records.filter(counts).length;
    if (n === 0) return;
    s.last = performance.now();
    s.mutations += n;
  });
  const opts = { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true };
  obs.observe(el.ownerDocument, opts);
  const wins = [win];
  try {
    if (win.top !== win && win.top.document) {
      obs.observe(win.top.document, opts);
      wins.push(win.top);
    }
  } catch {
    // a cross-origin top: its own document is out of reach
  }
  const onNavigate = (e) => {
    if (!e.destination || !e.destination.sameDocument) s.navigating = true;
  };
  for (const w of wins) if (w.navigation) w.navigation.addEventListener("navigate", onNavigate);
  let stopped = false;
  let timer = 0;
  s.stop = () => {
    if (stopped) return;
    stopped = true;
    obs.disconnect();
    win.clearTimeout(timer);
    for (const w of wins) if (w.navigation) w.navigation.removeEventListener("navigate", onNavigate);
    if (win.__egohostSettle === s) delete win.__egohostSettle;
  };
  timer = win.setTimeout(s.stop, 30000);
  win.__egohostSettle = s;
}
