// quiet resolves when the document has gone quietMs without a DOM mutation,
// and the short animations of what the mutations touched have ended
// (mutation.js; animated: there were some), or after capMs. It resolves
// {quiet, animated, mutations, ms}.
//
// early (a document a navigation just loaded): after one animation frame
// and a task, a document that has loaded (readyState "complete": its load
// handlers ran) and whose DOM nothing mutated meanwhile is quiet at once:
// {quiet: true, early: true}. One still loading (its images, say) with
// nothing mutated is quiet the same way after its load event, a frame and
// a task, if that comes before the quiet window ends. Otherwise it waits
// as above.
//
// A hidden document (a background tab) aligns its timers to Chrome's 1 s
// wake-ups: there it resolves at once {pending: true, since} (since: ms
// since the last mutation) and keeps its observer; the caller waits and
// calls again with poll set, until it resolves {quiet: true}.
// It runs in the page's own world (aria.Page): document is the page's, ns null.
// mutation is mutation.js: which mutations count, and what they touched.
(document, ns, quietMs, capMs, poll, mutation, early) => {
  const track = mutation();
  const opts = { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true };
  const prev = window.__egohostQuiet;
  if (document.hidden || (poll && prev)) {
    let q = prev;
    if (!poll || !q) {
      if (q) q.stop();
      const t0 = performance.now();
      q = { start: t0, last: t0, mutations: 0 };
      const obs = new MutationObserver((records) => {
        const n = track.note(records);
        if (n === 0) return;
        q.last = performance.now();
        q.mutations += n;
      });
      obs.observe(document, opts);
      const timer = setTimeout(() => q.stop(), 30000);
      q.stop = () => {
        obs.disconnect();
        clearTimeout(timer);
        if (window.__egohostQuiet === q) delete window.__egohostQuiet;
      };
      window.__egohostQuiet = q;
    }
    const now = performance.now();
    const since = now - q.last;
    if (since >= quietMs || now - q.start >= capMs) {
      q.stop();
      return { quiet: since >= quietMs, mutations: q.mutations, ms: now - q.start };
    }
    return { pending: true, since, mutations: q.mutations, ms: now - q.start };
  }
  return new Promise((resolve) => {
    const start = performance.now();
    const since = (document.timeline.currentTime ?? start) - 1; // for the animations (mutation.js; less a ms: it is coarsened)
    let last = start;
    let mutations = 0;
    let finished = false;
    const finish = (r) => {
      if (finished) return;
      finished = true;
      obs.disconnect();
      resolve(r);
    };
    const obs = new MutationObserver((records) => {
      const n = track.note(records);
      if (n === 0) return;
      last = performance.now();
      mutations += n;
    });
    obs.observe(document, opts);
    let animated = false;
    const tick = () => {
      if (finished) return;
      const now = performance.now();
      const still = now - last >= quietMs;
      // The short animations of what changed, as settle.js waits for them.
      const anim = still ? track.animating([document], since) : 0;
      if (anim > 0) animated = true;
      const quiet = still && anim <= 0;
      if (quiet || now - start >= capMs) {
        finish({ quiet, animated, mutations, ms: now - start });
        return;
      }
      setTimeout(tick, Math.max(5, Math.min(anim > 0 ? anim : quietMs - (now - last), capMs - (now - start))));
    };
    if (!early) {
      setTimeout(tick, quietMs);
      return;
    }
    // afterFrame runs then after one animation frame and a task (or 500 ms
    // without frames, as settle.js: a frame can come 100 ms late on a busy
    // machine), once.
    const afterFrame = (then) => {
      let done = false;
      const once = () => {
        if (done) return;
        done = true;
        setTimeout(then, 0);
      };
      requestAnimationFrame(once);
      setTimeout(once, 500); // no animation frames
    };
    const quietIfLoaded = () => {
      if (mutations === 0 && document.readyState === "complete") {
        finish({ quiet: true, early: true, mutations, ms: performance.now() - start });
        return true;
      }
      return false;
    };
    afterFrame(() => {
      if (finished || quietIfLoaded()) return;
      if (mutations === 0) {
        addEventListener("load", () => afterFrame(() => { if (!finished) quietIfLoaded(); }), { once: true });
      }
      setTimeout(tick, Math.max(0, quietMs - (performance.now() - last)));
    });
  });
}
