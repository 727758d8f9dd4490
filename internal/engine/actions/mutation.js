// mutation makes the settle's tracker of DOM mutations (observe.js,
// quiet.js): note(records) counts the records that are the page's
// activity and keeps the elements they added or changed; animating tells
// how long the short animations of those elements have left.
//
// Every record counts but one that changes only how an element's inline
// style moves or paints it: a script's animation writes the style
// attribute every frame (jQuery's bounce and shake effects move an element
// by its top or left for seconds), and a full or interactive snapshot
// after the settle reads none of it, as the observer sees nothing of a CSS
// animation doing the same. (A viewport snapshot keeps elements by where
// they are: one taken while a script still moves an element reads where
// it is then, as it would during a CSS animation.) A style change counts
// when it touches what shows or hides an element or what the snapshot
// reads of its style: display, visibility, content-visibility, clip-path
// and clip, cursor, and the opacity, width and height that a fade or a
// slide animates before it hides the element.
//
// A page may wait for an animation to end before it goes on: Bootstrap
// shows a modal once its backdrop has faded in (150 ms after the click),
// and hides it once it has faded out. animating(docs, since) is how long,
// in ms, the running CSS transitions and animations that started since
// `since` have left (a time of the document's timeline, read when the
// watch began: an animation a script starts between two frames gets the
// last frame's time as its start, earlier than performance.now() then, so
// one the action started in the frame interval the watch began in was
// passed over), among those of the elements the
// page added or changed (a counted attribute change: a class, a style) and
// what is inside them, when that is a second at most (an endless spinner,
// or a long one, is not waited for); 0 when none has. Only animations of
// what shows, hides or moves an element count (GATES: opacity, visibility,
// a transform, a height, a position): a fade or a slide is what a page
// waits for, not a focused field's border colour or shadow (MediaWiki's
// search box). The root and the body count for themselves only (Bootstrap
// marks the body of a page with a modal open): not for every animation of
// the page.
() => {
  const SHOWN = [
    "display", "visibility", "content-visibility", "clip-path", "clip", "cursor", "opacity",
    "width", "height", "max-width", "max-height",
  ];
  const MAX = 1000; // elements kept of each kind
  // GATES: the properties whose animation a page may wait for (in the
  // keyframes' camelCase; a transition's property in CSS's).
  const GATES = new Set([
    "opacity", "visibility", "display", "transform", "translate", "scale", "rotate", "height", "maxHeight",
    "top", "bottom", "left", "right", "clipPath", "contentVisibility",
  ]);
  const camel = (p) => p.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  const gates = (a) => {
    if (a.transitionProperty !== undefined) return GATES.has(camel(a.transitionProperty));
    try {
      return a.effect.getKeyframes().some((k) => Object.keys(k).some((p) => GATES.has(p)));
    } catch {
      return true;
    }
  };
  let before = null; // a detached element to parse the old inline style
  const counts = (r) => {
    const el = r.target;
    if (r.type !== "attributes" || r.attributeName !== "style" || !el.style || !el.ownerDocument) return true;
    if (!before || before.ownerDocument !== el.ownerDocument) before = el.ownerDocument.createElement("div");
    before.setAttribute("style", r.oldValue || "");
    return SHOWN.some((p) => before.style.getPropertyValue(p) !== el.style.getPropertyValue(p));
  };
  const added = new Set(); // elements added, and what is inside them
  const changed = new Set(); // elements changed, and what is inside them
  const self = new Set(); // the root and the body, changed: for themselves only
  const keep = (set, el) => {
    if (set.size < MAX) set.add(el);
  };
  const inside = (el) => {
    if (self.has(el)) return true;
    for (let e = el; e; e = e.parentElement) if (added.has(e) || changed.has(e)) return true;
    return false;
  };
  return {
    // note counts the records that count, and keeps what they touched.
    note(records) {
      let n = 0;
      for (const r of records) {
        if (!counts(r)) continue;
        n++;
        if (r.type === "childList") {
          for (const a of r.addedNodes) if (a.nodeType === 1) keep(added, a);
        } else if (r.type === "attributes") {
          const t = r.target;
          keep(t === t.ownerDocument.documentElement || t === t.ownerDocument.body ? self : changed, t);
        }
      }
      return n;
    },
    animating(docs, since) {
      if (added.size + changed.size + self.size === 0) return 0;
      let left = 0;
      for (const d of docs) {
        for (const a of d.getAnimations()) {
          // A pending one (no start time yet: its first frame has not come,
          // as on a busy machine) is about to start, all of it to run.
          if (a.playState !== "running" || !a.effect || a.startTime !== null && a.startTime < since) continue;
          const t = a.effect.getComputedTiming();
          const rest = t.endTime - (t.localTime ?? 0);
          if (!(rest > 0) || rest > 1000 || rest <= left) continue;
          if (a.effect.target && inside(a.effect.target) && gates(a)) left = rest;
        }
      }
      return left;
    },
    clear() {
      added.clear();
      changed.clear();
      self.clear();
    },
  };
}
