// engine.js finds the elements of a locator in one frame's document, in one
// Runtime.evaluate: it runs the locator's steps, counts, picks and measures,
// and returns only what Go needs. It runs in egohost's isolated world, so
// the page's own scripts cannot change what it sees, and it keeps no state
// between calls. Go evaluates `(<this file>)(spec)`; spec is:
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
(spec) => {
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
    visit(document);
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

  function parentComposed(n) {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (p && p.nodeType === 11 && p.host) return p.host;
    return p;
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

  const normWS = (s) => s.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');

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
    for (const el of document.querySelectorAll(special)) mark(el);
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

  function byId(el, id) {
    const r = el.getRootNode();
    return (r.getElementById ? r.getElementById(id) : null) || el.ownerDocument.getElementById(id);
  }

  const LABELABLE = new Set(['BUTTON', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA']);
  function labelTexts(el) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb !== null) {
      const refs = [];
      for (const id of lb.split(/\s+/)) {
        const r = id && byId(el, id);
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

  // ---- roles: every role an element could have in Chrome -----------------

  const canonRole = (r) => (r === 'image' ? 'img' : r === 'presentation' ? 'none' : r);

  function inputRoles(el) {
    switch ((el.getAttribute('type') || 'text').trim().toLowerCase()) {
      case 'button': case 'image': case 'reset': case 'submit': return ['button'];
      case 'checkbox': return ['checkbox', 'switch'];
      case 'radio': return ['radio'];
      case 'range': return ['slider'];
      case 'number': return ['spinbutton'];
      case 'hidden': return ['none'];
      case 'file': return ['button'];
      case 'color': return ['colorwell', 'button'];
      case 'date': return ['date', 'datetime'];
      case 'datetime-local': case 'month': case 'week': return ['datetime', 'date'];
      case 'time': return ['inputtime', 'time'];
      case 'search': return ['searchbox', 'combobox', 'textbox'];
      default: return ['textbox', 'combobox', 'searchbox'];
    }
  }

  // TAG_ROLES lists, per tag, every role Chrome may give it without a role
  // attribute (inputs and links depend on attributes: see roleTest).
  const TAG_ROLES = {
    a: ['link', 'generic'], area: ['link', 'generic'], abbr: ['abbr', 'generic'],
    address: ['group', 'generic'], article: ['article'], aside: ['complementary', 'generic'],
    audio: ['audio'], blockquote: ['blockquote'], body: ['generic', 'document'], br: ['linebreak'],
    button: ['button'], canvas: ['canvas', 'generic'], caption: ['caption'], code: ['code'],
    datalist: ['listbox'], dd: ['definition'], del: ['deletion', 'generic'], s: ['deletion', 'generic'],
    details: ['group'], dfn: ['term'], dt: ['term'], dialog: ['dialog'], dl: ['list', 'descriptionlist'],
    em: ['emphasis'], embed: ['embeddedobject', 'pluginobject', 'generic'],
    object: ['embeddedobject', 'pluginobject', 'generic'], fieldset: ['group'],
    figcaption: ['figcaption', 'generic'], figure: ['figure'],
    footer: ['contentinfo', 'sectionfooter', 'generic'], form: ['form', 'generic'],
    h1: ['heading'], h2: ['heading'], h3: ['heading'], h4: ['heading'], h5: ['heading'], h6: ['heading'],
    header: ['banner', 'sectionheader', 'generic'], hgroup: ['group', 'generic'], hr: ['separator'],
    html: ['generic', 'document', 'rootwebarea'], iframe: ['iframe', 'iframepresentational'],
    frame: ['iframe', 'iframepresentational'], img: ['img', 'none', 'generic'], image: ['img', 'none', 'generic'],
    input: [], ins: ['insertion', 'generic'], label: ['labeltext', 'generic'], legend: ['legend'],
    li: ['listitem', 'generic'], main: ['main'], mark: ['mark'], math: ['math'], menu: ['list'],
    ol: ['list'], ul: ['list'], meter: ['meter'], nav: ['navigation'], optgroup: ['group'],
    option: ['option', 'menulistoption'], output: ['status'], p: ['paragraph'], pre: ['pre', 'generic'],
    progress: ['progressbar'], ruby: ['ruby'], search: ['search'], section: ['region', 'generic'],
    select: ['combobox', 'listbox'], strong: ['strong'], sub: ['subscript'], sup: ['superscript'],
    summary: ['disclosuretriangle', 'button', 'generic'], svg: ['img', 'graphics-document', 'svgroot', 'generic'],
    table: ['table', 'layouttable'], tbody: ['rowgroup'], thead: ['rowgroup'], tfoot: ['rowgroup'],
    td: ['cell', 'gridcell', 'layouttablecell'], th: ['columnheader', 'rowheader', 'cell', 'gridcell'],
    tr: ['row', 'layouttablerow'], textarea: ['textbox'], time: ['time'], video: ['video'],
  };

  // Roles the tables above can produce, and ARIA's: for any other role (one
  // of Chrome's own, say) every element is a candidate.
  const KNOWN = new Set(['abbr', 'alert', 'alertdialog', 'application', 'article', 'audio', 'banner',
    'blockquote', 'button', 'canvas', 'caption', 'cell', 'checkbox', 'code', 'colorwell', 'columnheader',
    'combobox', 'complementary', 'contentinfo', 'date', 'datetime', 'definition', 'deletion',
    'descriptionlist', 'dialog', 'disclosuretriangle', 'document', 'embeddedobject', 'emphasis', 'feed',
    'figcaption', 'figure', 'form', 'generic', 'graphics-document', 'grid', 'gridcell', 'group', 'heading',
    'iframe', 'iframepresentational', 'img', 'inputtime', 'insertion', 'labeltext', 'layouttable',
    'layouttablecell', 'layouttablerow', 'legend', 'linebreak', 'link', 'list', 'listbox', 'listitem',
    'log', 'main', 'mark', 'marquee', 'math', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'menulistoption', 'meter', 'navigation', 'none', 'note', 'option', 'paragraph',
    'pluginobject', 'pre', 'progressbar', 'radio', 'radiogroup', 'region', 'rootwebarea', 'row',
    'rowgroup', 'rowheader', 'ruby', 'scrollbar', 'search', 'searchbox', 'sectionfooter', 'sectionheader',
    'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'superscript', 'svgroot',
    'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar',
    'tooltip', 'tree', 'treegrid', 'treeitem', 'video']);

  // roleTest returns a test: could Chrome give el the role?
  function roleTest(role) {
    if (!KNOWN.has(role)) return () => true;
    const tags = new Set();
    for (const tag in TAG_ROLES) if (TAG_ROLES[tag].includes(role)) tags.add(tag);
    if (role === 'button' || role === 'checkbox' || role === 'switch' || role === 'radio' || role === 'slider' ||
      role === 'spinbutton' || role === 'searchbox' || role === 'combobox' || role === 'textbox' || role === 'none' ||
      role === 'colorwell' || role === 'date' || role === 'datetime' || role === 'inputtime' || role === 'time') tags.add('input');
    return (el) => {
      const explicit = el.getAttribute('role');
      if (explicit) {
        for (const tok of explicit.trim().toLowerCase().split(/\s+/)) {
          if (canonRole(tok) === role) return true;
        }
      }
      const t = el.localName;
      if (tags.has(t)) {
        if (t === 'input') return inputRoles(el).includes(role);
        if (t === 'a' || t === 'area') {
          return el.hasAttribute('href') || el.hasAttribute('xlink:href') ? role === 'link' : role === 'generic';
        }
        return true;
      }
      // A custom element may set its role through ElementInternals, which
      // the page cannot read.
      if (t.includes('-')) return true;
      if (role === 'generic' && !(t in TAG_ROLES)) return true;
      return role === 'textbox' && el.isContentEditable;
    };
  }

  // hiddenForAria: elements Chrome leaves out of the accessibility tree
  // (display:none, visibility:hidden, aria-hidden, inert). Conservative:
  // when unsure, not hidden.
  function hiddenForAria(el) {
    for (let e = el; e && e.nodeType === 1; e = parentComposed(e)) {
      const ah = e.getAttribute('aria-hidden');
      if (ah !== null && ah.trim().toLowerCase() === 'true') return true;
      if (e.inert) return true;
    }
    const t = el.localName;
    if (t === 'option' || t === 'optgroup') return false;
    if (t === 'area' || t === 'slot') return false;
    const st = getComputedStyle(el);
    if (st.display === 'contents') return false;
    return !el.checkVisibility({ visibilityProperty: true });
  }

  function pseudoText(el, which = '::before') {
    const c = getComputedStyle(el, which).content;
    if (!c || c === 'none' || c === 'normal') return '';
    const out = [];
    const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
    let m;
    while ((m = re.exec(c))) out.push((m[1] ?? m[2]).replace(/\\(.)/g, '$1'));
    return out.join(' ');
  }

  // nameSources lists strings Chrome's accessible name of el could be made
  // from, or contain; the likeliest first.
  function* nameSources(el) {
    const text = deepText(el, false);
    yield text;
    yield el.getAttribute('aria-label');
    yield el.getAttribute('title');
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const parts = [];
      for (const id of lb.split(/\s+/)) {
        const r = id && byId(el, id);
        if (r) parts.push(deepText(r, false), deepText(r, true));
      }
      yield parts.join(' ');
    }
    yield el.getAttribute('alt');
    yield el.getAttribute('placeholder');
    yield el.getAttribute('aria-placeholder');
    yield el.getAttribute('aria-valuetext');
    const t = el.localName;
    if (t === 'input') {
      yield el.value;
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (type === 'submit' || type === 'image') yield 'Submit';
      if (type === 'reset') yield 'Reset';
    }
    if (el.labels) for (const l of el.labels) yield deepText(l, false);
    if (el.firstElementChild || el.shadowRoot) {
      yield deepText(el, true);
      yield el.innerText; // without hidden descendants' text
    }
    if (hasPseudoContent()) yield pseudoText(el) + ' ' + text + ' ' + pseudoText(el, '::after');
  }

  // hasPseudoContent reports whether any style sheet may give an element
  // ::before / ::after content (which Chrome puts in accessible names).
  let pseudoRules = null;
  function hasPseudoContent() {
    if (pseudoRules !== null) return pseudoRules;
    const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
    for (const sr of scan().roots) sheets.push(...sr.styleSheets, ...(sr.adoptedStyleSheets || []));
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.selectorText !== undefined && /:(before|after|marker)/i.test(rule.selectorText)) return true;
        if (rule.cssRules && visit(rule.cssRules)) return true;
      }
      return false;
    };
    pseudoRules = false;
    for (const sheet of sheets) {
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (e) {
        pseudoRules = true; // a cross-origin sheet: assume it may
        break;
      }
      if (visit(rules)) {
        pseudoRules = true;
        break;
      }
    }
    return pseudoRules;
  }

  // deepText is el's text through open shadow roots; with alts, a
  // descendant's aria-label / alt / title / value stands for its content
  // (the way name-from-content reads it).
  function deepText(el, alts) {
    if (!alts && !scan().roots.length) return el.textContent || '';
    let out = '';
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { out += c.nodeValue; continue; }
        if (c.nodeType !== 1) continue;
        if (alts) {
          const a = c.getAttribute('aria-label') || c.getAttribute('alt') ||
            (c.localName === 'input' ? c.value : null) || c.getAttribute('title');
          if (a) { out += ' ' + a + ' '; continue; }
        }
        walk(c);
      }
      if (n.shadowRoot) walk(n.shadowRoot);
    };
    walk(el);
    return out;
  }

  const squash = (s) => s.replace(/[\s\u200b\u00ad]+/g, '').toLowerCase();

  // nameMayMatch is a superset test: could el's accessible name match t?
  function nameMayMatch(el, t) {
    if (t.re !== undefined) {
      const re = new RegExp(t.re, t.flags);
      for (const s of nameSources(el)) {
        if (s && (re.lastIndex = 0, re.test(normWS(s)))) return true;
      }
      return false;
    }
    const want = squash(t.v);
    if (!want) return true;
    for (const s of nameSources(el)) {
      if (s && squash(s).includes(want)) return true;
    }
    return false;
  }

  function queryRole(root, r) {
    const out = [];
    const mayHaveRole = roleTest(r.role);
    for (const el of allElements(root)) {
      if (!mayHaveRole(el)) continue;
      // A custom element may name itself through ElementInternals.
      if (r.name && !el.localName.includes('-') && !nameMayMatch(el, r.name)) continue;
      if (!r.hidden && hiddenForAria(el)) continue;
      out.push(el);
    }
    return out;
  }

  // ---- visibility (Playwright's isElementVisible) ------------------------

  function visible(el) {
    const st = getComputedStyle(el);
    if (st.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && visible(c)) return true;
        if (c.nodeType === 3 && c.nodeValue.trim()) {
          const r = document.createRange();
          r.selectNodeContents(c);
          const rects = r.getClientRects();
          for (const rc of rects) if (rc.width > 0 && rc.height > 0) return true;
        }
      }
      return false;
    }
    if (!el.checkVisibility({ visibilityProperty: true })) return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
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
          cur = cur.filter((el) => el.nodeType === 1 && visible(el) === st.visible);
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
    els = run(spec.steps, document);
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
      return [JSON.stringify({ n, frames, from, boxes }), ...part];
    }
  }
  return { error: 'unknown mode ' + spec.mode };
}
