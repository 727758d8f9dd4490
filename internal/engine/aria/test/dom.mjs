// A small fake DOM for the page module's node tests: just what aria.js reads
// (tree, attributes, labels, form state, computed display / visibility /
// generated content, a few selectors), so the role and name logic runs in
// node with no browser and no npm package. Layout is not modelled: every
// rendered element is 10×10 px. Build pages with h():
//
//   const doc = page(h("button", { class: "x", "::before": '"Sa" "ve"' }), "text");
//
// Attributes are strings; a key "::before" / "::after" sets the element's
// generated content (a CSS `content` value), "shadow" a list of children
// for an open shadow root, "props" properties (value, checked…).

const INLINE = new Set("a abbr b bdi bdo br button cite code del dfn em i img input ins kbd label mark meter output progress q s samp select small span strong sub sup svg textarea time u var".split(" "));
const NONE = new Set("area base datalist head link meta noscript script style template title".split(" "));
const LABELABLE = new Set(["button", "input", "meter", "output", "progress", "select", "textarea"]);
const FORM_CONTROLS = new Set(["button", "fieldset", "input", "optgroup", "option", "select", "textarea"]);
const FOCUSABLE = new Set(["button", "input", "select", "textarea", "iframe", "summary"]);

class Node {
  constructor(doc, nodeType) {
    this.ownerDocument = doc;
    this.nodeType = nodeType;
    this.parentNode = null;
    this.childNodes = [];
  }
  get firstChild() {
    return this.childNodes[0] || null;
  }
  get nextSibling() {
    const p = this.parentNode;
    if (!p) return null;
    return p.childNodes[p.childNodes.indexOf(this) + 1] || null;
  }
  get parentElement() {
    return this.parentNode && this.parentNode.nodeType === 1 ? this.parentNode : null;
  }
  get assignedSlot() {
    return null;
  }
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  get isConnected() {
    return this.getRootNode().nodeType === 9;
  }
  getRootNode() {
    let n = this;
    while (n.parentNode) n = n.parentNode;
    return n;
  }
  contains(n) {
    for (; n; n = n.parentNode) if (n === this) return true;
    return false;
  }
  append(...kids) {
    for (const k of kids.flat(Infinity)) {
      const n = typeof k === "string" ? new Text(this.ownerDocument, k) : k;
      n.parentNode = this;
      this.childNodes.push(n);
    }
  }
  get children() {
    return this.childNodes.filter((c) => c.nodeType === 1);
  }
  get firstElementChild() {
    return this.children[0] || null;
  }
  // descendants lists the elements under this node in tree order (not
  // into shadow roots).
  descendants() {
    const out = [];
    const walk = (n) => {
      for (const c of n.children) {
        out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }
  querySelectorAll(sel) {
    return this.descendants().filter((e) => matches(e, sel, this));
  }
  querySelector(sel) {
    return this.querySelectorAll(sel)[0] || null;
  }
  getElementById(id) {
    return this.descendants().find((e) => e.getAttribute("id") === id) || null;
  }
}

class Text extends Node {
  constructor(doc, data) {
    super(doc, 3);
    this.data = data;
  }
  get nodeName() {
    return "#text";
  }
  get nodeValue() {
    return this.data;
  }
  get textContent() {
    return this.data;
  }
}

class ShadowRoot extends Node {
  constructor(doc, host) {
    super(doc, 11);
    this.host = host;
    this.styleSheets = [];
  }
}

class Element extends Node {
  constructor(doc, tag) {
    super(doc, 1);
    this.localName = tag;
    this.attrs = new Map();
    this.shadowRoot = null;
    this.pseudo = {};
    this.props = {};
  }
  get nodeName() {
    return this.localName.toUpperCase();
  }
  get id() {
    return this.getAttribute("id") ?? "";
  }
  get className() {
    return this.getAttribute("class") ?? "";
  }
  getAttribute(n) {
    return this.attrs.has(n) ? this.attrs.get(n) : null;
  }
  hasAttribute(n) {
    return this.attrs.has(n);
  }
  setAttribute(n, v) {
    this.attrs.set(n, String(v));
  }
  get nextElementSibling() {
    for (let n = this.nextSibling; n; n = n.nextSibling) if (n.nodeType === 1) return n;
    return null;
  }
  attachShadow() {
    this.shadowRoot = new ShadowRoot(this.ownerDocument, this);
    return this.shadowRoot;
  }
  matches(sel) {
    return matches(this, sel, null);
  }
  closest(sel) {
    for (let e = this; e && e.nodeType === 1; e = e.parentNode) if (e.matches(sel)) return e;
    return null;
  }
  prop(name, fallback) {
    return name in this.props ? this.props[name] : fallback;
  }
  // Form state.
  get type() {
    return (this.getAttribute("type") || "text").toLowerCase();
  }
  get value() {
    return this.prop("value", this.getAttribute("value") ?? "");
  }
  get checked() {
    return this.prop("checked", this.hasAttribute("checked"));
  }
  get files() {
    return this.localName === "input" && this.type === "file" ? this.prop("files", []) : null;
  }
  get indeterminate() {
    return this.prop("indeterminate", false);
  }
  get disabled() {
    return FORM_CONTROLS.has(this.localName) && this.hasAttribute("disabled");
  }
  get required() {
    return this.hasAttribute("required");
  }
  get multiple() {
    return this.hasAttribute("multiple");
  }
  get size() {
    return Number(this.getAttribute("size") || 0);
  }
  get open() {
    return this.hasAttribute("open");
  }
  get inert() {
    return this.hasAttribute("inert");
  }
  get options() {
    return this.descendants().filter((e) => e.localName === "option");
  }
  get selected() {
    return this.prop("selected", this.hasAttribute("selected"));
  }
  get selectedOptions() {
    const opts = this.options;
    const sel = opts.filter((o) => o.selected);
    return sel.length || this.multiple ? sel : opts.slice(0, 1);
  }
  get label() {
    return this.getAttribute("label") ?? this.textContent;
  }
  get href() {
    return this.getAttribute("href") ?? "";
  }
  get tabIndex() {
    const t = this.getAttribute("tabindex");
    if (t !== null && t.trim() !== "" && !isNaN(Number(t))) return Number(t);
    if (FOCUSABLE.has(this.localName) || ((this.localName === "a" || this.localName === "area") && this.hasAttribute("href"))) return 0;
    return -1;
  }
  get isContentEditable() {
    for (let e = this; e && e.nodeType === 1; e = e.parentNode) {
      const v = e.getAttribute("contenteditable");
      if (v === "" || v === "true") return true;
      if (v === "false") return false;
    }
    return false;
  }
  // Labels: <label for=id> in the same tree, and an enclosing <label>.
  get control() {
    if (this.localName !== "label") return undefined;
    const f = this.getAttribute("for");
    if (f !== null) {
      const c = this.getRootNode().getElementById?.(f);
      return c && LABELABLE.has(c.localName) ? c : null;
    }
    return this.descendants().find((e) => LABELABLE.has(e.localName) && !(e.localName === "input" && e.type === "hidden")) || null;
  }
  get labels() {
    if (!LABELABLE.has(this.localName)) return undefined;
    if (this.localName === "input" && this.type === "hidden") return null;
    return this.getRootNode().descendants().filter((l) => l.localName === "label" && l.control === this);
  }
  get innerText() {
    // Rendered text: without display:none descendants.
    const walk = (n) =>
      n.childNodes.map((c) => (c.nodeType === 3 ? c.data : computed(c).display === "none" ? "" : walk(c))).join("");
    return walk(this);
  }
  // Layout: every rendered element is 10×10.
  checkVisibility(o = {}) {
    for (let e = this; e && e.nodeType === 1; e = composedParent(e)) if (computed(e).display === "none") return false;
    return !(o.visibilityProperty && computed(this).visibility !== "visible");
  }
  getBoundingClientRect() {
    const on = this.checkVisibility() && computed(this).display !== "contents";
    return { x: 0, y: 0, left: 0, top: 0, width: on ? 10 : 0, height: on ? 10 : 0, right: on ? 10 : 0, bottom: on ? 10 : 0 };
  }
  getClientRects() {
    const r = this.getBoundingClientRect();
    return r.width ? [r] : [];
  }
}

class Document extends Node {
  constructor() {
    super(null, 9);
    this.ownerDocument = null;
    this.styleSheets = [];
    this.adoptedStyleSheets = [];
    this.defaultView = { getComputedStyle: (el, pseudo) => computed(el, pseudo) };
  }
  createElement(tag) {
    return new Element(this, tag);
  }
  get body() {
    return this.descendants().find((e) => e.localName === "body") || null;
  }
  get documentElement() {
    return this.firstElementChild;
  }
  createRange() {
    let node = null;
    return {
      selectNodeContents: (n) => (node = n),
      getClientRects: () => (node && node.parentNode && node.parentNode.checkVisibility() ? [{ width: 10, height: 10 }] : []),
    };
  }
}

function composedParent(e) {
  const p = e.parentNode;
  return p && p.nodeType === 11 ? p.host : p;
}

// styleOf parses an element's style attribute.
function styleOf(el) {
  const out = {};
  for (const decl of (el.getAttribute("style") || "").split(";")) {
    const i = decl.indexOf(":");
    if (i > 0) out[decl.slice(0, i).trim()] = decl.slice(i + 1).trim();
  }
  return out;
}

// computed is getComputedStyle: display (the style attribute, else the
// tag's default; `hidden` is display:none), visibility (inherited) and, for
// a pseudo-element, content.
function computed(el, pseudo) {
  if (pseudo) {
    // A pseudo-element is its content, or {content, display, visibility}.
    const p = el.pseudo[pseudo];
    if (p && typeof p === "object") return { display: "inline", visibility: "visible", ...p };
    return { display: "inline", visibility: "visible", content: p ?? "none" };
  }
  const st = styleOf(el);
  const tag = el.localName;
  let display = st.display;
  if (!display) {
    if (el.hasAttribute("hidden") || NONE.has(tag)) display = "none";
    else if (tag === "slot") display = "contents";
    else if (tag === "li") display = "list-item";
    else if (INLINE.has(tag)) display = tag === "button" || tag === "input" || tag === "select" ? "inline-block" : "inline";
    else display = "block";
  }
  let visibility = st.visibility;
  if (!visibility) {
    const p = composedParent(el);
    visibility = p && p.nodeType === 1 ? computed(p).visibility : "visible";
  }
  return { display, visibility, content: "normal", cursor: st.cursor || "auto" };
}

// matches supports what aria.js asks: comma lists of compounds, each an
// optional ":scope > " prefix, then a tag or *, [attr] / [attr="v"], and
// :disabled.
function matches(el, sel, scope) {
  return sel.split(",").some((part) => {
    let s = part.trim();
    if (s.startsWith(":scope")) {
      s = s.replace(/^:scope\s*>\s*/, "");
      if (el.parentNode !== scope) return false;
    }
    const m = /^([a-z0-9*-]*)((?:\[[^\]]+\])*)((?::disabled)?)$/i.exec(s);
    if (!m) throw new Error(`fake DOM: unsupported selector ${JSON.stringify(sel)}`);
    const [, tag, attrs, pseudo] = m;
    if (tag && tag !== "*" && el.localName !== tag.toLowerCase()) return false;
    for (const [, name, , v] of attrs.matchAll(/\[([\w-]+)(=("|')?([^\]"']*)\3?)?\]/g)) {
      if (!el.hasAttribute(name)) return false;
      if (v !== undefined && el.getAttribute(name) !== v) return false;
    }
    if (pseudo === ":disabled" && !el.disabled) return false;
    return true;
  });
}

// h builds an element: h(tag, attrs?, ...children).
export function h(tag, attrs, ...kids) {
  if (typeof attrs === "string" || Array.isArray(attrs) || attrs instanceof Spec) {
    kids.unshift(attrs);
    attrs = {};
  }
  return new Spec(tag, attrs || {}, kids);
}

class Spec {
  constructor(tag, attrs, kids) {
    this.tag = tag;
    this.attrs = attrs;
    this.kids = kids;
  }
}

// page builds a document whose body holds the children; style sheets say
// they generate content when any element has some.
export function page(...kids) {
  const doc = new Document();
  const build = (spec, parent) => {
    if (typeof spec === "string") {
      parent.append(spec);
      return;
    }
    const el = doc.createElement(spec.tag);
    for (const [k, v] of Object.entries(spec.attrs)) {
      if (k === "::before" || k === "::after") {
        el.pseudo[k] = v;
        doc.styleSheets = [{ cssRules: [{ selectorText: "*" + k }] }];
      } else if (k === "shadow") {
        const root = el.attachShadow({ mode: "open" });
        for (const c of v) build(c, root);
      } else if (k === "props") {
        Object.assign(el.props, v);
      } else {
        el.setAttribute(k, v);
      }
    }
    for (const c of spec.kids.flat()) build(c, el);
    parent.append(el);
    return el;
  };
  const html = doc.createElement("html");
  doc.append(html);
  const body = doc.createElement("body");
  html.append(body);
  for (const k of kids.flat()) build(k, body);
  return doc;
}

// all lists a document's elements, open shadow trees included.
export function all(doc) {
  const out = [];
  const walk = (root) => {
    for (const e of root.descendants()) {
      out.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(doc);
  return out;
}

// byTestId finds the element with data-t=id (the tests' handle).
export function byTestId(doc, id) {
  const e = all(doc).find((x) => x.getAttribute("data-t") === id);
  if (!e) throw new Error(`no element data-t=${id}`);
  return e;
}
