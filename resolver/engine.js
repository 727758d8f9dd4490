// engine.js finds the elements of a locator in one frame's document, in one
// Runtime.evaluate: it runs the locator's steps, counts, picks and measures,
// and returns only what Go needs. It runs in egohost's isolated world, so
// the page's own scripts cannot change what it sees, and it keeps no state
// between calls. It is called with egohost's calling convention
// (internal/engine/aria/aria.go): (document, ns, spec), ns the page module, which computes
// roles and names for the locator as it does for the snapshot; spec is:
//
//   steps:  [{op: 'query', kind, sel | role | text}, {op: 'nth', n},
//            {op: 'hasText' | 'hasNotText', text}, {op: 'has' | 'hasNot', steps},
//            {op: 'visible', visible}]
//           text = {v, exact, re, flags}; role = {role, name: text|null, hidden}
//   mode:   'count'  → {n, frames}
//           'center' → {n, frames, at, box}     box: centre of the border box
//           'object' → the element itself when the pick is final here, else
//                      a JSON string {n, frames, at}
//           'list'   → [JSON string {n, frames, from, boxes}, element, …]: the
//                      matches from index `from` (negative: from the end),
//                      at most `max` of them

//   pick:   {nth: i} (-1: last) or {strict: true}; offset: matches in the
//           documents before this one (the tab's frames are one sequence).
//   limit:  in 'list' mode, measure the elements only when there are at most
//           this many.
//
// Semantics follow Playwright's selector engines (injected script,
// playwright-core 1.64): text and has-text as internal:text /
// internal:has-text, label as internal:label, placeholder/alt/title as
// internal:attr, testid as internal:testid, css piercing open shadow roots.
// Roles are computed in the page as a superset of what Chrome computes
// (every role an element could have, every string its name could come
// from); when the role step is the last query, Go checks each candidate
// against Chrome's own accessibility tree.
(doc, ns, spec) => {
  'use strict';

  // ---- the document: open shadow roots and frames (one scan) ------------

  // scan walks the document once: every element in order (an open shadow
  // tree right after its host), the open shadow roots, and the frames.
  let scanned = null;
  function scan() {
    if (scanned) return scanned;
    const all = [];
    const roots = [];
    let frames = 0;
    const visit = (root) => {
      for (const el of root.querySelectorAll('*')) {
        all.push(el);
        const t = el.localName;
        if (t === 'iframe' || t === 'frame') frames++;
        if (el.shadowRoot) {
          roots.push(el.shadowRoot);
          visit(el.shadowRoot);
        }
      }
    };
    visit(doc);
    scanned = { all, roots, frames };
    return scanned;
  }

  // shadowRootsIn returns the open shadow roots inside root (a document,
  // shadow root or element), including root's own.
  function shadowRootsIn(root) {
    const all = scan().roots;
    if (!all.length) return all;
    if (root.nodeType === 9) return all;
    return all.filter((sr) => sr !== root && composedContains(root, sr.host));
  }

  function composedContains(root, n) {
    const top = root.nodeType === 11 ? root.host : root;
    for (let e = n; e; e = e.parentNode && e.parentNode.nodeType === 11 ? e.parentNode.host : e.parentNode) {
      if (e === top) return root.nodeType !== 11 || n !== top;
    }
    return false;
  }

  // allElements lists the elements under root (not root), open shadow
  // trees right after their host.
  function allElements(root) {
    if (root.nodeType === 9) return scan().all;
    if (!scan().roots.length) return Array.from(root.querySelectorAll('*'));
    const out = [];
    const visit = (r) => {
      for (const el of r.querySelectorAll('*')) {
        out.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    if (root.shadowRoot) visit(root.shadowRoot);
    visit(root);
    return out;
  }

  // ---- text (Playwright's elementText / createTextMatcher) --------------

  const normWS = ns.normWS;

  function skipText(el) {
    const t = el.nodeName;
    return t === 'SCRIPT' || t === 'NOSCRIPT' || t === 'STYLE' || (el.ownerDocument.head && el.ownerDocument.head.contains(el));
  }

  // elementText is an element's (or shadow root's) text: its text nodes
  // and its children's text, through open shadow roots, without scripts and
  // styles; a submit/button/reset input's value. Normalised and lower-case
  // forms are computed when first asked for.
  const textCache = new Map();
  function elementText(root) {
    let v = textCache.get(root);
    if (v !== undefined) return v;
    let full = '';
    if (root.nodeType === 1 && !impure().has(root)) {
      full = root.textContent; // the same, computed natively
    } else if (root.nodeType === 11 || !skipText(root)) {
      if (root.nodeType === 1 && root.localName === 'input' && (root.type === 'submit' || root.type === 'button' || root.type === 'reset')) {
        full = root.value;
      } else {
        for (let c = root.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3) full += c.nodeValue;
          else if (c.nodeType === 1) full += elementText(c).full;
        }
        if (root.shadowRoot) full += elementText(root.shadowRoot).full;
      }
    }
    v = { full, n: null, lo: null };
    textCache.set(root, v);
    return v;
  }
  // impure holds the elements whose text is not their textContent: those
  // with a script, style, noscript, head, button-like input or open shadow
  // root inside (or being one).
  let impureSet = null;
  function impure() {
    if (impureSet) return impureSet;
    impureSet = new Set();
    const mark = (el) => {
      for (let e = el; e && e.nodeType === 1 && !impureSet.has(e); e = e.parentNode && e.parentNode.nodeType === 11 ? e.parentNode.host : e.parentNode) {
        impureSet.add(e);
      }
    };
    const special = 'script,style,noscript,head,input[type=submit i],input[type=button i],input[type=reset i]';
    for (const el of doc.querySelectorAll(special)) mark(el);
    for (const sr of scan().roots) {
      mark(sr.host);
      for (const el of sr.querySelectorAll(special)) mark(el);
    }
    return impureSet;
  }
  const normOf = (et) => (et.n === null ? (et.n = et.full ? normWS(et.full) : '') : et.n);
  const lowerOf = (et) => (et.lo === null ? (et.lo = normOf(et).toLowerCase()) : et.lo);

  // textMatcher returns (elementText) => bool and its kind.
  function textMatcher(t) {
    if (t.re !== undefined) {
      const re = new RegExp(t.re, t.flags);
      return { kind: 'regex', match: (et) => { re.lastIndex = 0; return re.test(et.full); } };
    }
    const want = normWS(t.v);
    if (t.exact) return { kind: 'strict', match: (et) => normOf(et) === want };
    const lower = want.toLowerCase();
    return { kind: 'lax', match: (et) => lowerOf(et).includes(lower) };
  }

  // attrMatcher is Playwright's createAttributeMatcher: no white space
  // normalisation.
  function attrMatcher(t) {
    if (t.re !== undefined) {
      const re = new RegExp(t.re, t.flags);
      return (s) => { re.lastIndex = 0; return re.test(s); };
    }
    if (t.exact) return (s) => s === t.v;
    const lower = t.v.toLowerCase();
    return (s) => s.toLowerCase().includes(lower);
  }

  function matchesText(el, m) {
    if (skipText(el)) return 'none';
    if (!m.match(elementText(el))) return 'none';
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && m.match(elementText(c))) return 'selfAndChildren';
    }
    if (el.shadowRoot && m.match(elementText(el.shadowRoot))) return 'selfAndChildren';
    return 'self';
  }

  // ---- engines: (root, step) → elements ----------------------------------

  function queryCSS(root, sel) {
    let out = Array.from(root.querySelectorAll(sel));
    for (const sr of shadowRootsIn(root)) {
      const more = sr.querySelectorAll(sel);
      if (more.length) out = out.concat(Array.from(more));
    }
    return out;
  }

  function queryXPath(root, sel) {
    if (sel.startsWith('/') && root.nodeType !== 9) sel = '.' + sel;
    const doc = root.nodeType === 9 ? root : root.ownerDocument;
    const it = doc.evaluate(sel, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < it.snapshotLength; i++) {
      const n = it.snapshotItem(i);
      if (n.nodeType === 1) out.push(n);
    }
    return out;
  }

  // queryText is Playwright's internal:text engine: the innermost elements
  // whose text matches. An element's text contains each descendant's, so
  // for substring and exact matches the search only goes down into
  // elements whose text contains the wanted text; a regular expression
  // looks at every element.
  function queryText(root, t) {
    const m = textMatcher(t);
    const out = [];
    if (m.kind === 'regex') {
      let lastNone = null;
      const add = (el) => {
        const r = matchesText(el, m);
        if (r === 'none') lastNone = el;
        if (r === 'self') out.push(el);
      };
      if (root.nodeType === 1) add(root);
      for (const el of allElements(root)) add(el);
      return out;
    }
    const want = normWS(t.v);
    const lower = want.toLowerCase();
    const contains = m.kind === 'lax' ? (et) => lowerOf(et).includes(lower) : (et) => normOf(et).includes(want);
    const visit = (el) => {
      if (skipText(el) || !contains(elementText(el))) return;
      const self = m.match(elementText(el));
      let child = false;
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (self && !child && m.match(elementText(c))) child = true;
        visit(c);
      }
      if (el.shadowRoot) {
        if (self && !child && m.match(elementText(el.shadowRoot))) child = true;
        for (let c = el.shadowRoot.firstElementChild; c; c = c.nextElementSibling) visit(c);
      }
      if (self && !child) out.push(el);
    };
    if (root.nodeType === 1) {
      visit(root);
    } else {
      for (let c = root.firstElementChild; c; c = c.nextElementSibling) visit(c);
    }
    return out;
  }

  const LABELABLE = new Set(['BUTTON', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA']);
  function labelTexts(el) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb !== null) {
      const refs = [];
      for (const id of lb.split(/\s+/)) {
        const r = id && ns.byId(el, id);
        if (r) refs.push(r);
      }
      if (refs.length) return refs.map(elementText);
    }
    const al = el.getAttribute('aria-label');
    if (al !== null && al.trim()) return [{ full: al, n: null, lo: null }];
    if (LABELABLE.has(el.nodeName) || (el.nodeName === 'INPUT' && el.type !== 'hidden')) {
      if (el.labels) return Array.from(el.labels, elementText);
    }
    return [];
  }

  function queryLabel(root, t) {
    const m = textMatcher(t);
    return allElements(root).filter((el) => labelTexts(el).some((lt) => m.match(lt)));
  }

  function queryAttr(root, attr, t) {
    const m = attrMatcher(t);
    return queryCSS(root, '[' + attr + ']').filter((el) => m(el.getAttribute(attr)));
  }

  // ---- roles: every role and name an element could have in Chrome ---------
  // (the page module's superset side: ns.roleTest, ns.hiddenForAria,
  // nameSources)

  // The page module's view of the document: names read through the open
  // shadow roots this call's scan found.
  const A = ns.view(doc, () => scan().roots);

  const squash = (s) => s.replace(/[\s\u200b\u00ad]+/g, '').toLowerCase();

  // nameMayMatch is a superset test: could el's accessible name match t?
  function nameMayMatch(el, t) {
    if (t.re !== undefined) {
      const re = new RegExp(t.re, t.flags);
      for (const s of A.nameSources(el)) {
        if (s && (re.lastIndex = 0, re.test(normWS(s)))) return true;
      }
      return false;
    }
    const want = squash(t.v);
    if (!want) return true;
    for (const s of A.nameSources(el)) {
      if (s && squash(s).includes(want)) return true;
    }
    return false;
  }

  // rowNameOf is a row's name: its label, else its content (as Playwright
  // names rows; Chrome gives a table's rows none), computed once a call.
  const rowNames = new Map();
  function rowNameOf(el) {
    let n = rowNames.get(el);
    if (n === undefined) rowNames.set(el, (n = normWS(A.name(el) || A.rowName(el))));
    return n;
  }

  // glyphName is the page module's name of an element whose Chrome name
  // may differ from it by rule, else '' (Chrome's name stands): one that
  // may hold characters that show no text (ns.showsNoText: an icon font's
  // glyphs, in its text or its generated content), and one with no text
  // but elements, which a descendant's tooltip may name (Django's
  // calendar link, <a><span title="Choose a Date"></span></a>: Chrome
  // reads no title in content; Playwright and the page module do). The
  // check needs it only there, and it costs a name a match.
  function glyphName(el) {
    const text = el.textContent;
    return ns.showsNoText(text) || A.hasPseudo() || (el.firstElementChild && !text.trim()) || hiddenLabels(el) ? A.name(el) : '';
  }

  // hiddenLabels says whether el is a control whose every label is hidden
  // (Roundcube's login: Chrome names it "", its hidden label's text left
  // out and its placeholder passed over; the page module names it by its
  // placeholder).
  function hiddenLabels(el) {
    const ls = el.labels;
    if (!ls || !ls.length) return false;
    for (const l of ls) if (!ns.isHidden(l)) return false;
    return true;
  }

  function queryRole(root, r) {
    const out = [];
    const mayHaveRole = ns.roleTest(r.role);
    // A row's name is tested here as the final check tests it (the name
    // matcher of text=), so that a row step in the middle of a chain is
    // as exact as one at its end: the superset test alone would let
    // role=row[name="edit 1"] take "edit 10".
    const row = r.name && r.role === 'row' ? textMatcher(r.name) : null;
    for (const el of allElements(root)) {
      if (!mayHaveRole(el)) continue;
      // A custom element may name itself through ElementInternals.
      if (r.name && !el.localName.includes('-') && !nameMayMatch(el, r.name)) continue;
      if (row && !el.localName.includes('-') && !row.match({ full: rowNameOf(el), n: null, lo: null })) continue;
      if (!r.hidden && ns.hiddenForAria(el)) continue;
      out.push(el);
    }
    return out;
  }

  // ---- running the steps ---------------------------------------------------

  function queryStep(root, st) {
    switch (st.kind) {
      case 'css': return queryCSS(root, st.sel);
      case 'xpath': return queryXPath(root, st.sel);
      case 'text': return queryText(root, st.text);
      case 'label': return queryLabel(root, st.text);
      case 'placeholder': case 'alt': case 'title': return queryAttr(root, st.kind, st.text);
      case 'testid': return queryAttr(root, 'data-testid', st.text);
      case 'role': return queryRole(root, st.role);
    }
    throw new Error('unknown kind ' + st.kind);
  }

  function run(steps, root) {
    let cur = [root];
    for (const st of steps) {
      switch (st.op) {
        case 'query': {
          const seen = new Set();
          const next = [];
          for (const r of cur) {
            for (const el of queryStep(r, st)) {
              if (!seen.has(el)) { seen.add(el); next.push(el); }
            }
          }
          cur = next;
          break;
        }
        case 'nth':
          cur = st.n === -1 ? cur.slice(-1) : cur.slice(st.n, st.n + 1);
          break;
        case 'hasText': case 'hasNotText': {
          const m = textMatcher(st.text);
          const want = st.op === 'hasText';
          cur = cur.filter((el) => el.nodeType === 1 && (want ? !skipText(el) && m.match(elementText(el)) : !m.match(elementText(el))));
          break;
        }
        case 'has': case 'hasNot': {
          const want = st.op === 'has';
          cur = cur.filter((el) => el.nodeType === 1 && (run(st.steps, el).length > 0) === want);
          break;
        }
        case 'visible':
          cur = cur.filter((el) => el.nodeType === 1 && ns.visible(el) === st.visible);
          break;
        default:
          throw new Error('unknown op ' + st.op);
      }
    }
    return cur.filter((el) => el.nodeType === 1);
  }

  // ---- geometry --------------------------------------------------------------

  // box returns the centre of el's border box in this frame's viewport
  // (of its first box with an area: an inline element that wraps has one
  // per line), and the size of its bounds; null when el has no box (not
  // rendered, or empty). It is the point DOM.getContentQuads gives Go and
  // the actions click at.
  function box(el) {
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return null;
    let f = r;
    for (const c of el.getClientRects()) {
      if (c.width > 0 && c.height > 0) { f = c; break; }
    }
    return { x: f.left + f.width / 2, y: f.top + f.height / 2, w: r.width, h: r.height };
  }

  // ---- main ------------------------------------------------------------------

  let els;
  try {
    els = run(spec.steps, doc);
  } catch (e) {
    const err = { error: String(e && e.message || e), syntax: !!(e && (e.name === 'SyntaxError' || e.name === 'NamespaceError')) };
    // Every mode reports the error in its own header shape: list mode as
    // the header of an empty list.
    return spec.mode === 'list' ? [JSON.stringify(err)] : spec.mode === 'object' ? JSON.stringify(err) : err;
  }
  const n = els.length;
  const frames = scan().frames;
  const pick = spec.pick || {};
  let at = -1;
  if (pick.strict) at = n === 1 ? 0 : -1;
  else if (pick.nth === -1) at = n - 1;
  else if (pick.nth !== undefined) at = pick.nth - (spec.offset || 0);
  if (at >= n) at = -1;

  switch (spec.mode) {
    case 'count':
      return { n, frames };
    case 'center':
      return { n, frames, at, box: at >= 0 ? box(els[at]) : null };
    case 'object': {
      const final = at >= 0 && (frames === 0 || (pick.nth !== undefined && pick.nth >= 0));
      if (final) return els[at];
      return JSON.stringify({ n, frames, at });
    }
    case 'list': {
      // A window of the matches: from (negative: from the end), at most max.
      let from = spec.from || 0;
      if (from < 0) from = Math.max(0, n + from);
      const part = spec.max === undefined ? els.slice(from) : els.slice(from, from + spec.max);
      const limit = spec.limit === undefined ? n : spec.limit;
      const boxes = part.length <= limit ? part.map(box) : null;
      // Names asked for: the page module's where it may differ from
      // Chrome's by rule (Go takes them there: resolver/verify.go); rows'
      // from their content when they have no other (Chrome names a
      // table's rows with nothing; Playwright from their content).
      // With the roles (below), the page module's whole names: Chrome
      // names an element whose role it dropped as the generic it is.
      const names = spec.names === 'row' ? part.map(rowNameOf) : spec.names && spec.roles ? part.map((el) => A.name(el)) :
        spec.names ? part.map(glyphName) : undefined;
      // Roles asked for: the page module's, which Go takes where Chrome
      // drops a role outside its required context (resolver/verify.go).
      const roles = spec.roles ? part.map((el) => A.role(el) || '') : undefined;
      return [JSON.stringify({ n, frames, from, boxes, names, roles }), ...part];
    }
  }
  return { error: 'unknown mode ' + spec.mode };
}
