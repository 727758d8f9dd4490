// egohost's overlay, kept once per page in an isolated world of the main frame (aria.Keep:
// this file is one expression whose value is the entry point, with egohost's calling
// convention, at the end). It draws highlight boxes, shows the picker's hint and describes a
// picked element. The DOM it adds is
// one <egohost-overlay> element in the top layer (a manual popover), its content in a shadow
// root, so the page's styles do not reach it and it sits above everything the page shows.
(() => {
  const TAG = "egohost-overlay";
  const STYLE = `
    :host { all: initial; }
    .box { position: fixed; box-sizing: border-box; border: 2px solid #d6336c; background: rgba(214, 51, 108, 0.18); pointer-events: none; }
    .label { position: absolute; left: -2px; bottom: 100%; max-width: 420px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis;
      font: 11px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: #fff; background: #d6336c; padding: 0 4px; border-radius: 2px 2px 0 0; }
    .box.below .label { bottom: auto; top: 100%; border-radius: 0 0 2px 2px; }
    .hint { position: fixed; left: 50%; top: 8px; transform: translateX(-50%); pointer-events: none;
      font: 12px/1.4 system-ui, sans-serif; color: #fff; background: rgba(31, 35, 40, 0.9); padding: 4px 10px; border-radius: 4px; }
  `;
  let host = null;
  let root = null;
  let boxes = null; // the layer of highlight boxes

  function ensure() {
    if (host && host.isConnected) return root;
    host = document.createElement(TAG);
    host.setAttribute("popover", "manual");
    host.style.cssText =
      "all: initial; position: fixed; inset: 0; width: 100vw; height: 100vh; max-width: none; max-height: none;" +
      "margin: 0; padding: 0; border: 0; background: transparent; overflow: visible; pointer-events: none; z-index: 2147483647;";
    root = host.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = STYLE;
    boxes = document.createElement("div");
    root.append(style, boxes);
    (document.documentElement || document.body).appendChild(host);
    try {
      host.showPopover();
    } catch {
      // no popover support or not allowed here: the z-index still puts it on top of most pages
    }
    return root;
  }

  function drawBox(layer, b) {
    const el = document.createElement("div");
    el.className = "box";
    el.style.left = `${b.x}px`;
    el.style.top = `${b.y}px`;
    el.style.width = `${Math.max(b.width, 2)}px`;
    el.style.height = `${Math.max(b.height, 2)}px`;
    if (b.y < 18) el.classList.add("below");
    if (b.label) {
      const label = document.createElement("div");
      label.className = "label";
      label.textContent = b.label;
      el.append(label);
    }
    layer.append(el);
    return el;
  }

  // The boxes are in viewport coordinates of the moment they were measured: a scroll or a
  // resize makes them wrong, so they go (the popup draws them again on the next hover).
  function onMove() {
    clear();
  }

  function show(list) {
    if (list.length === 0) {
      clear();
      return 0;
    }
    ensure();
    boxes.replaceChildren();
    for (const b of list) drawBox(boxes, b);
    addEventListener("scroll", onMove, { capture: true, passive: true });
    addEventListener("resize", onMove, { passive: true });
    return list.length;
  }

  function clear() {
    removeEventListener("scroll", onMove, { capture: true });
    removeEventListener("resize", onMove);
    if (boxes) boxes.replaceChildren();
    if (host && !root.querySelector(".hint")) {
      host.remove();
      host = root = boxes = null;
    }
    return true;
  }

  // hint shows (text) or removes ("") the one-line note at the top of the viewport.
  function hint(text) {
    if (!text) {
      root?.querySelector(".hint")?.remove();
      if (boxes && boxes.childElementCount === 0) clear();
      return true;
    }
    ensure();
    let el = root.querySelector(".hint");
    if (!el) {
      el = document.createElement("div");
      el.className = "hint";
      root.append(el);
    }
    el.textContent = text;
    return true;
  }

  // describe gives what the service cannot ask Chrome for: a CSS path unique in its
  // document (verified by the resolver before it is offered) and the element's short text.
  function describe(el) {
    return { css: cssPath(el), text: textOf(el) };
  }

  function textOf(el) {
    const t = (el.innerText ?? el.textContent ?? "").replace(/\s+/g, " ").trim();
    return t.length <= 80 ? t : "";
  }

  function cssPath(el) {
    const root = el.getRootNode();
    const unique = (sel) => {
      try {
        return root.querySelectorAll(sel).length === 1;
      } catch {
        return false;
      }
    };
    if (el.id && unique(`#${CSS.escape(el.id)}`)) return `#${CSS.escape(el.id)}`;
    const steps = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (e !== el && e.id && unique(`#${CSS.escape(e.id)}`)) {
        steps.unshift(`#${CSS.escape(e.id)}`);
        break;
      }
      let step = CSS.escape(e.localName);
      const parent = e.parentElement;
      if (parent) {
        const same = [...parent.children].filter((c) => c.localName === e.localName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(e) + 1})`;
      }
      steps.unshift(step);
      if (unique(steps.join(" > "))) break;
    }
    return steps.join(" > ");
  }

  // The entry point: el is the document, or the element to describe; op says what to do:
  //   show   arg: the boxes to draw (replacing those drawn); their number
  //   clear  remove the boxes (a pick in progress stays)
  //   hint   arg: the hint's text ("" removes it)
  //   describe  el's CSS path and short text: {css, text}
  return (el, ns, op, arg) => {
    switch (op) {
      case "show":
        return show(arg);
      case "clear":
        return clear();
      case "hint":
        return hint(arg);
      case "describe":
        return describe(el);
    }
    throw new Error(`overlay: unknown op ${op}`);
  };
})()
