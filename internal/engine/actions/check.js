// check measures an element and runs the actionability checks Playwright
// documents: visible, stable, enabled, editable, receives events, on el (a
// text node stands for its parent). o = {visible, stable, enabled, editable,
// hit, scroll, retarget}:
//   scroll: 0 = scroll into view if needed, 1..3 = force the alignment
//           end / center / start (to get out from under sticky headers).
//   retarget: "label" checks a label's control instead (fill, select);
//           "button" accepts a hit anywhere in the enclosing button or link.
//   describe: only describe the element ({ok: true, desc}); nothing else.
//   inspect: only read its states ({ok: true, desc, visible, enabled});
//            nothing else.
// It returns {ok: true, x, y, top, tx, ty, box, desc, hidden} (x, y: the action
// point in the element's frame; tx, ty: the same in the top-level viewport
// when every parent frame is reachable from here, top: whether it was; box:
// the element's border box [left, top, width, height] in those coordinates;
// hidden: the document is hidden, i.e. its tab is in the background, where
// Chrome runs no animation frames and aligns timers to 1 s wake-ups) or
// {ok: false, reason, cover, desc}.
// describe (aria.WithDescribe: describe.js) is in scope.
async (node, ns, o) => {
  let el = node;
  if (!el || !el.isConnected) return { ok: false, reason: "not attached", desc: describe(el) };
  if (el.nodeType !== 1) el = el.parentElement;
  if (!el) return { ok: false, reason: "not attached", desc: "" };
  if (o.retarget === "label" && el.localName === "label" && el.control) el = el.control;
  const desc = describe(el);
  if (o.describe) return { ok: true, desc };
  const fail = (reason, extra) => ({ ok: false, reason, desc, ...extra });
  const win = el.ownerDocument.defaultView;

  const visibleNow = () => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const st = win.getComputedStyle(el);
    return st.visibility !== "hidden" && st.visibility !== "collapse";
  };
  const disabledNow = () =>
    (typeof el.matches === "function" && el.matches(":disabled")) || !!el.closest('[aria-disabled="true"]');
  // inspect: only read the states, change nothing (no scrolling).
  if (o.inspect) {
    return { ok: true, desc, visible: visibleNow(), enabled: !disabledNow() };
  }
  if (o.visible && !visibleNow()) return fail("not visible");

  if ((o.enabled || o.editable) && disabledNow()) return fail("disabled");
  if (o.editable) {
    const tag = el.localName;
    const textInput = tag === "input" || tag === "textarea";
    if (!textInput && !el.isContentEditable && tag !== "select") {
      return fail("unsupported", {
        detail: "element is not an <input>, <textarea>, <select> or [contenteditable] element",
      });
    }
    if ((textInput && el.readOnly) || el.getAttribute("aria-readonly") === "true") return fail("not editable");
  }

  // Scroll into view: only if needed on the first attempt, then force the
  // alignments one after another.
  const inView = () => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= win.innerHeight && r.right <= win.innerWidth;
  };
  const aligns = ["end", "center", "start"];
  if (o.scroll > 0) {
    const a = aligns[(o.scroll - 1) % 3];
    el.scrollIntoView({ block: a, inline: a, behavior: "instant" });
  } else if (!inView()) {
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  }

  // The next frame; a hidden document runs no animation frames (and its
  // timers wait for Chrome's 1 s wake-ups): there, the next task.
  const hidden = !!win.document.hidden;
  let framed = false; // a frame ended the last wait, not the timer
  const frame = () =>
    new Promise((resolve) => {
      framed = false;
      if (hidden) {
        const ch = new win.MessageChannel();
        ch.port1.onmessage = () => resolve();
        ch.port2.postMessage(0);
        return;
      }
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          resolve();
        }
      };
      win.requestAnimationFrame(() => {
        framed = true;
        finish();
      });
      // A tab that runs no animation frames (a busy machine, a window the
      // page cannot paint in): do not wait for them.
      win.setTimeout(finish, 100);
    });
  // moving says an animation that can move or resize the element runs on
  // it or on what holds it (a transition, a CSS or script animation of
  // anything but paint: colours, opacity, shadows, filters).
  const paintOnly = /^(offset|computedOffset|easing|composite|opacity|color|background.*|boxShadow|textShadow|outline.*|filter|fill|stroke|border.*Color|caretColor|textDecorationColor|visibility)$/;
  const moving = () => {
    for (let n = el; n; n = n.parentNode || n.host) {
      if (n.nodeType !== 1 || typeof n.getAnimations !== "function") continue;
      for (const a of n.getAnimations()) {
        if (a.playState !== "running") continue;
        const kf = a.effect && typeof a.effect.getKeyframes === "function" ? a.effect.getKeyframes() : [];
        if (kf.length === 0 || kf.some((k) => Object.keys(k).some((p) => !paintOnly.test(p)))) return true;
      }
    }
    return false;
  };
  const rect = () => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height];
  };
  if (o.stable) {
    // Stable over a frame: the box now (the layout the next frame paints;
    // reading it brings style and layout up to date) and the box in the
    // next animation frame, after that frame's animations ticked. They
    // tick by the document's timeline, and the next frame often runs at
    // the very time a read between frames already saw (a third of the
    // frames in Chromium 156, idle or busy): then nothing moved between
    // the two reads, whatever runs, so the frame after it counts instead.
    // While an animation that can move the element runs (on it or on what
    // holds it), two frames that ticked must find the same box: one was
    // seen to say so, rarely, under load, of a sliding button.
    const time = () => {
      const t = win.document.timeline;
      return t && typeof t.currentTime === "number" ? t.currentTime : null;
    };
    const a = rect();
    const t0 = time();
    const anim = !hidden && moving();
    for (let n = 1, ticks = 0, frames = 0; ; n++) {
      await frame();
      const b = rect();
      const t1 = time();
      if (!el.isConnected) return fail("not attached");
      if (a.some((v, i) => v !== b[i])) return fail("not stable");
      if (framed) frames++;
      if (hidden || (framed && (t0 === null || t1 > t0))) ticks++;
      if (ticks >= (anim ? 2 : 1)) break;
      // No frame came in time (the timer ended the wait): with nothing
      // animated, the wait stands for the frame (a move by timers shows).
      if (!framed && !anim) break;
      if (n >= 3) {
        // Frames did not come in time: the same box proves nothing while
        // an animation runs. Every wait a frame, and the timeline stood
        // still in all (DevTools paused the animations): nothing moves.
        if (anim && !(frames === n && ticks === 0)) return fail("not stable");
        break;
      }
    }
  }
  if (o.visible && !visibleNow()) return fail("not visible");

  // The action point: the centre of the first box of the element (a link
  // that wraps lines has one per line) clipped to the viewport.
  const boxes = [...el.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
  const box = boxes[0] || el.getBoundingClientRect();
  const left = Math.max(box.left, 0);
  const top = Math.max(box.top, 0);
  const right = Math.min(box.right, win.innerWidth);
  const bottom = Math.min(box.bottom, win.innerHeight);
  if (right <= left || bottom <= top) {
    if (o.hit) {
      // Placed where no scrolling reaches (left of or above the page's
      // start): a control the page moves off-screen until what holds it is
      // hovered or it is focused (WordPress's row actions, at left -9999em).
      const off = box.right <= 0 && win.scrollX <= 0 || box.bottom <= 0 && win.scrollY <= 0;
      return fail("outside the viewport", off ? {
        detail: `it is placed off-screen (at ${Math.round(box.left)}, ${Math.round(box.top)}), where no scrolling reaches; ` +
          "the page likely shows it on hover or focus: hover over what holds it (its row, or another control in it), or focus it, then act",
      } : undefined);
    }
  }
  const x = right > left ? (left + right) / 2 : box.left + box.width / 2;
  const y = bottom > top ? (top + bottom) / 2 : box.top + box.height / 2;

  // Receives events: the element hit at the point must be it or inside it.
  let expect = el;
  if (o.retarget === "button") {
    const b = el.closest("button, a, [role=button], [role=link]");
    if (b) expect = b;
  }
  const hitAt = (doc, px, py) => {
    let hit = doc.elementFromPoint(px, py);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(px, py);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const inside = (n, want) => {
    for (; n; n = n.parentNode || n.host) if (n === want) return true;
    return false;
  };
  // A label hit for its own control counts as the control.
  const accepts = (hit, want) =>
    inside(hit, want) || (hit && hit.localName === "label" && hit.control === want) ||
    (hit && hit.closest && hit.closest("label") && hit.closest("label").control === want);

  if (o.hit) {
    const hit = hitAt(el.ownerDocument, x, y);
    if (!accepts(hit, expect)) return fail("covered", { cover: describe(hit) });
  }
  // Walk up same-origin parent frames: to top-level coordinates, and the
  // frame element must receive the events too.
  let tx = x, ty = y, w = win, reached = true;
  for (;;) {
    let fe = null;
    try {
      fe = w.frameElement;
    } catch {
      fe = null;
    }
    if (!fe) {
      reached = w === w.top;
      break;
    }
    const r = fe.getBoundingClientRect();
    const st = w.parent.getComputedStyle(fe);
    tx += r.left + fe.clientLeft + parseFloat(st.paddingLeft || "0");
    ty += r.top + fe.clientTop + parseFloat(st.paddingTop || "0");
    if (o.hit) {
      const hit = hitAt(fe.ownerDocument, tx, ty);
      if (!inside(hit, fe)) return fail("covered", { cover: describe(hit) });
    }
    w = w.parent;
  }
  const br = el.getBoundingClientRect();
  return { ok: true, x, y, top: reached, tx, ty, desc, hidden, box: [br.left + tx - x, br.top + ty - y, br.width, br.height] };
}
