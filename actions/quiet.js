// quiet resolves when the document has gone quietMs without a DOM mutation,
// or after capMs. It resolves {quiet, mutations, ms}.
(quietMs, capMs) =>
  new Promise((resolve) => {
    const start = performance.now();
    let last = start;
    let mutations = 0;
    const obs = new MutationObserver((records) => {
      last = performance.now();
      mutations += records.length;
    });
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const tick = () => {
      const now = performance.now();
      const quiet = now - last >= quietMs;
      if (quiet || now - start >= capMs) {
        obs.disconnect();
        resolve({ quiet, mutations, ms: now - start });
        return;
      }
      setTimeout(tick, Math.max(5, Math.min(quietMs - (now - last), capMs - (now - start))));
    };
    setTimeout(tick, quietMs);
  })
