// facts says what a confirmation needs of the element an action is about
// to act on (confirm.Facts): its tag, ARIA role and accessible name (of the
// button or link a click lands on, as the click's checks retarget it, or
// the control of a label),
// whether it is in a form, and whether activating it submits one (o.enter:
// an Enter pressed in it; else a click); the resolved href of the link it
// is or is in (an HTML or SVG <a href>, an <area href>, through shadow
// roots to a link around their host: where activating it goes). Also its
// border box, for the person's picture.
(node, ns, o) => {
  let el = node.nodeType === 1 ? node : node.parentElement;
  if (!el || !el.isConnected) return { gone: true };
  if (!o.enter) {
    // A click on a label activates its control (a submit button too).
    const label = el.closest("label");
    if (label && label.control) el = label.control;
    const b = el.closest("button, a, area, input, [role=button], [role=link]");
    if (b) el = b;
  }
  const A = ns.view(el.ownerDocument);
  const form = el.form || el.closest("form");
  const tag = el.localName;
  const type = (el.getAttribute("type") || "").toLowerCase();
  let submits = false;
  if (o.enter) {
    // Enter submits the form of a text field (implicit submission), or
    // activates a submit button.
    const text = tag === "input" && !["button", "checkbox", "radio", "file", "reset", "image", "color", "range", "hidden"].includes(type);
    submits = !!form && (text || (tag === "button" && (type === "" || type === "submit")) || (tag === "input" && (type === "submit" || type === "image")));
  } else {
    submits = !!form && ((tag === "button" && (type === "" || type === "submit")) || (tag === "input" && (type === "submit" || type === "image")));
  }
  // The link activating it follows (a button inside a link follows it too,
  // and so does anything in a shadow tree whose host is in a link): up
  // through the shadow roots. An SVG <a> has its href as an attribute
  // (href or xlink:href), not a string property.
  const XLINK = "http://www.w3.org/1999/xlink";
  let link = null;
  for (let n = el; n && !link; n = n.getRootNode().host) {
    link = n.closest("a[href], area[href], a[*|href]");
  }
  let href = "";
  if (link) {
    const raw = link.getAttribute("href") ?? link.getAttributeNS(XLINK, "href");
    try {
      href = raw === null ? "" : new URL(raw, link.baseURI).href;
    } catch {
      href = "";
    }
  }
  const r = el.getBoundingClientRect();
  let x = r.left, y = r.top;
  for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.parent) {
    const f = w.frameElement.getBoundingClientRect();
    x += f.left; y += f.top;
  }
  return {
    tag, role: A.role(el) || "", name: A.name(el) || "", submits, inForm: !!form,
    href,
    box: [x, y, r.width, r.height], url: el.ownerDocument.URL,
  };
}
