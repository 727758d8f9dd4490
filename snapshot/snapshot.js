// snapshot.js runs in egohost's isolated world of one frame (the page's own
// scripts cannot see it). It walks the frame's document in the flat tree
// (open shadow roots, slots), computes each element's ARIA role and
// accessible name the way Chrome's accessibility tree does, and returns a
// compact tree as a JSON string. Elements an agent can act on get a local id
// that is stable for the life of the document (a WeakMap keeps it), so Go
// can map it to a tab-wide ref without fetching backendNodeIds up front:
// resolve(id) hands the element back when a ref is used, and localOf(el)
// says which element had one.
//
// The expression that loads this file evaluates to a factory; Go calls
//   (globalThis[KEY] ||= factory()).snapshot(opts, scopeElement?)
// Tree node shapes (short keys keep the bytes that cross chrome.debugger few):
//   "text"                                   a run of text
//   {r: role, n: name, i: localId, s: {...}, c: [children], v: value, u: url}
//   {r: "iframe", n: name, f: index}         a child frame placeholder (index into frames)
(() => {
  'use strict';

  const ids = new WeakMap(); // element → local id, stable per document
  let nextId = 1;
  let live = new Map(); // local id → element, for the latest snapshot

  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);
  // Roles an agent acts on: these get refs.
  const INTERACTIVE = new Set([
    'button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'option', 'checkbox', 'radio',
    'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
    'treeitem', 'DisclosureTriangle',
  ]);
  // Roles whose name comes from their content (accname "name from content").
  const FROM_CONTENT = new Set([
    'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab',
    'tooltip', 'treeitem', 'DisclosureTriangle', 'term', 'caption', 'legend', 'code', 'deletion',
    'emphasis', 'insertion', 'mark', 'strong', 'subscript', 'superscript', 'time', 'sectionhead',
  ]);
  // Roles that never carry an author name (ARIA prohibits naming them).
  const NO_NAME = new Set([
    'generic', 'none', 'presentation', 'paragraph', 'code', 'deletion', 'emphasis', 'insertion',
    'mark', 'strong', 'subscript', 'superscript', 'time', 'caption', 'term', 'definition', 'LabelText',
    'legend', 'blockquote', 'sectionfooter', 'sectionheader',
  ]);
  // Roles the text tree folds into their parent (their text stays).
  const FOLD = new Set([
    'generic', 'none', 'presentation', 'paragraph', 'code', 'deletion', 'emphasis', 'insertion',
    'mark', 'strong', 'subscript', 'superscript', 'time', 'term', 'definition', 'LabelText', 'legend',
    'blockquote', 'caption', 'rowgroup', 'sectionfooter', 'sectionheader', 'abbr', 'figure', 'group-unnamed',
  ]);
  // Roles kept as context lines in interactive-only snapshots.
  const CONTEXT = new Set([
    'banner', 'main', 'navigation', 'contentinfo', 'complementary', 'region', 'form', 'search',
    'dialog', 'alertdialog', 'heading', 'menu', 'menubar', 'tablist', 'tabpanel', 'tree', 'grid',
    'treegrid', 'toolbar', 'radiogroup', 'iframe', 'table', 'row', 'listbox',
  ]);
  const ARIA_ROLES = new Set([
    'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption',
    'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'complementary', 'contentinfo',
    'definition', 'deletion', 'dialog', 'document', 'emphasis', 'feed', 'figure', 'form', 'generic',
    'grid', 'gridcell', 'group', 'heading', 'img', 'image', 'insertion', 'link', 'list', 'listbox',
    'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'menu', 'menubar', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'meter', 'navigation', 'none', 'note', 'option',
    'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup',
    'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status',
    'strong', 'subscript', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term',
    'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
  ]);
  const LANDMARK_SCOPES = 'article,aside,main,nav,section';

  // Per-snapshot state.
  let S = null;

  const norm = (s) => s.replace(/[\s\u00a0]+/g, ' ').trim();

  function attr(el, name) {
    const v = el.getAttribute(name);
    return v === null ? null : v;
  }

  function style(el) {
    return el.ownerDocument.defaultView.getComputedStyle(el);
  }

  function ariaHidden(el) {
    const v = el.getAttribute('aria-hidden');
    return v !== null && v.trim().toLowerCase() === 'true';
  }

  // isHidden walks up (used for nodes reached by reference, not by the walk).
  function isHidden(el) {
    for (let e = el; e; e = e.parentElement || (e.parentNode && e.parentNode.host)) {
      if (e.nodeType !== 1) continue;
      if (ariaHidden(e) || e.inert || style(e).display === 'none') return true;
    }
    return style(el).visibility !== 'visible';
  }

  const NATIVE_FOCUS = /^(button|input|select|textarea|iframe|summary)$/;
  function focusable(el) {
    if (el.tabIndex < 0) return false;
    if (el.hasAttribute('tabindex')) return true;
    const tag = el.localName;
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return true;
    return NATIVE_FOCUS.test(tag) && !el.disabled && !(tag === 'input' && el.type === 'hidden');
  }

  function hasGlobalAria(el) {
    for (const a of ['aria-label', 'aria-labelledby', 'aria-describedby', 'aria-live', 'aria-owns', 'aria-controls', 'aria-busy', 'aria-details', 'aria-keyshortcuts', 'aria-roledescription']) {
      if (el.hasAttribute(a)) return true;
    }
    return false;
  }

  function explicitRole(el) {
    const v = el.getAttribute('role');
    if (!v) return null;
    for (const tok of v.trim().toLowerCase().split(/\s+/)) {
      if (ARIA_ROLES.has(tok)) {
        if (tok === 'image') return 'img';
        if ((tok === 'none' || tok === 'presentation') && (focusable(el) || hasGlobalAria(el))) return null;
        return tok;
      }
    }
    return null;
  }

  function inScope(el, selector) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (p.matches(selector)) return true;
    }
    return false;
  }

  function implicitRole(el, tag) {
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'article': return 'article';
      case 'aside': return inScope(el, 'article,aside,nav,section') && !hasName(el) ? 'generic' : 'complementary';
      case 'blockquote': return 'blockquote';
      case 'button': return 'button';
      case 'caption': return 'caption';
      case 'code': return 'code';
      case 'datalist': return 'listbox';
      case 'dd': return 'definition';
      case 'del': case 's': return 'deletion';
      case 'details': return 'group';
      case 'dfn': case 'dt': return 'term';
      case 'dialog': return 'dialog';
      case 'em': return 'emphasis';
      case 'fieldset': return 'group';
      case 'figure': return 'figure';
      case 'footer': return inScope(el, LANDMARK_SCOPES) ? 'sectionfooter' : 'contentinfo';
      case 'form': return 'form';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'header': return inScope(el, LANDMARK_SCOPES) ? 'sectionheader' : 'banner';
      case 'hr': return 'separator';
      case 'img': {
        const alt = el.getAttribute('alt');
        if (alt === '' && !el.hasAttribute('title') && !hasGlobalAria(el)) return 'none';
        return 'img';
      }
      case 'svg': return 'img';
      case 'input': return inputRole(el);
      case 'ins': return 'insertion';
      case 'label': return 'LabelText';
      case 'legend': return 'legend';
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'mark': return 'mark';
      case 'math': return 'math';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'search': return 'search';
      case 'section': return hasName(el) ? 'region' : 'generic';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'strong': case 'b': return tag === 'strong' ? 'strong' : 'generic';
      case 'sub': return 'subscript';
      case 'sup': return 'superscript';
      case 'summary': return summaryRole(el);
      case 'table': return 'table';
      case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
      case 'td': return cellRole(el);
      case 'th': return headerRole(el);
      case 'tr': return 'row';
      case 'textarea': return 'textbox';
      case 'time': return 'time';
      case 'iframe': case 'frame': return 'iframe';
      case 'html': case 'body': return 'generic';
      default: return 'generic';
    }
  }

  function summaryRole(el) {
    const d = el.parentElement;
    return d && d.localName === 'details' && d.querySelector(':scope > summary') === el ? 'DisclosureTriangle' : 'generic';
  }

  function tableRoleOf(el) {
    const t = el.closest('table');
    if (!t) return null;
    const r = explicitRole(t);
    return r || 'table';
  }

  function cellRole(el) {
    const t = tableRoleOf(el);
    return t === 'grid' || t === 'treegrid' ? 'gridcell' : 'cell';
  }

  function headerRole(el) {
    const scope = (el.getAttribute('scope') || '').toLowerCase();
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    const tr = el.parentElement;
    if (tr && tr.parentElement && tr.parentElement.localName === 'thead') return 'columnheader';
    // A th with td siblings in its row heads that row.
    if (tr) for (const c of tr.children) if (c.localName === 'td') return 'rowheader';
    return 'columnheader';
  }

  function inputRole(el) {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    switch (type) {
      case 'button': case 'image': case 'reset': case 'submit': return 'button';
      case 'checkbox': return el.getAttribute('switch') !== null ? 'switch' : 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'hidden': return 'none';
      case 'file': return 'button';
      case 'color': return 'ColorWell';
      case 'date': return 'Date';
      case 'datetime-local': return 'DateTime';
      case 'time': return 'InputTime';
      case 'month': case 'week': return 'DateTime';
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'email': case 'tel': case 'text': case 'url': case 'password':
      default: return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
  }

  function hasName(el) {
    const l = el.getAttribute('aria-label');
    if (l && l.trim()) return true;
    const lb = el.getAttribute('aria-labelledby');
    if (lb && lb.trim()) return labelledbyText(el, lb) !== '';
    const t = el.getAttribute('title');
    return !!(t && t.trim());
  }

  function roleOf(el, tag) {
    const r = explicitRole(el);
    if (r) return r;
    return implicitRole(el, tag);
  }

  // --- accessible names (accname 1.2, as Chrome implements it) -----------

  function root(el) { return el.getRootNode(); }

  function byId(el, id) {
    const r = root(el);
    return r.getElementById ? r.getElementById(id) : el.ownerDocument.getElementById(id);
  }

  function labelledbyText(el, value) {
    const parts = [];
    for (const id of value.trim().split(/\s+/)) {
      const ref = byId(el, id);
      if (ref) parts.push(textAlt(ref, { labelledby: true, visited: new Set([el]), hiddenOk: isHidden(ref) }));
    }
    return norm(parts.join(' '));
  }

  function pseudo(el, which) {
    if (!S.pseudo) return '';
    const c = el.ownerDocument.defaultView.getComputedStyle(el, which).content;
    if (!c || c === 'none' || c === 'normal') return '';
    // content: "x" / "x" "y" / counter(...) / url(...) / attr(...) — keep the strings.
    const out = [];
    const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
    let m;
    while ((m = re.exec(c))) out.push((m[1] ?? m[2]).replace(/\\(.)/g, '$1'));
    // "/ alt text" after a slash replaces the visible content.
    const slash = c.lastIndexOf('/');
    if (slash > 0 && out.length > 1 && /"\s*\/\s*"/.test(c)) return out[out.length - 1];
    return out.join('');
  }

  function isBlock(st) {
    const d = st.display;
    return !(d.startsWith('inline') || d === 'contents' || d === 'ruby' || d === 'ruby-text');
  }

  function controlValue(el, role) {
    const tag = el.localName;
    if (role === 'textbox' || role === 'searchbox') {
      if (tag === 'input' || tag === 'textarea') return el.value;
      return el.textContent;
    }
    if (role === 'combobox' || role === 'listbox') {
      if (tag === 'select') {
        const o = el.selectedOptions;
        return Array.from(o).map((x) => norm(x.label || x.textContent)).join(' ');
      }
      if (tag === 'input') return el.value;
      const sel = el.querySelector('[aria-selected="true"]');
      return sel ? textAlt(sel, { recursion: true, visited: new Set() }) : '';
    }
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'scrollbar' || role === 'meter') {
      const vt = el.getAttribute('aria-valuetext');
      if (vt) return vt;
      const vn = el.getAttribute('aria-valuenow');
      if (vn) return vn;
      if (tag === 'input') return el.value;
      return '';
    }
    return null;
  }

  // textAlt computes the text alternative of el.
  // ctx: {recursion, labelledby, hiddenOk, visited, root}
  function textAlt(el, ctx) {
    if (el.nodeType === 3) return el.data;
    if (el.nodeType !== 1) return '';
    if (ctx.visited) {
      if (ctx.visited.has(el)) return '';
      ctx.visited.add(el);
    }
    const tag = el.localName;
    if (SKIP.has(tag)) return '';
    if (!ctx.hiddenOk && (ariaHidden(el) || style(el).display === 'none')) return '';
    const role = roleOf(el, tag);
    const inner = ctx.recursion || ctx.labelledby;

    // 2B: aria-labelledby (not while following another labelledby).
    if (!ctx.labelledby) {
      const lb = el.getAttribute('aria-labelledby');
      if (lb && lb.trim()) {
        const t = labelledbyText(el, lb);
        if (t) return t;
      }
    }
    // 2C: an embedded control inside another element's name gives its value.
    if (inner && !ctx.isRootOfLabel) {
      const v = controlValue(el, role);
      if (v !== null && role !== 'button') {
        const l = el.getAttribute('aria-label');
        if (!(ctx.labelledby && ctx.visited.size === 1 && l)) return v;
      }
    }
    // 2D: aria-label.
    const label = el.getAttribute('aria-label');
    if (label && label.trim() && !(NO_NAME.has(role) && !inner)) return label;

    // 2E: the host language's own label.
    if (role !== 'none' && role !== 'presentation') {
      const n = nativeName(el, tag, role, ctx);
      if (n) return n;
    }
    // 2F: name from content.
    if (inner || FROM_CONTENT.has(role) || tag === 'label' || tag === 'legend' || tag === 'caption' || tag === 'figcaption') {
      if (!(role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'listbox' || tag === 'select')) {
        const t = fromContent(el, ctx);
        if (t.trim()) return t;
      }
    }
    // 2I: tooltip attribute, then placeholder.
    const title = el.getAttribute('title');
    if (title && title.trim()) return title;
    if (role === 'textbox' || role === 'searchbox' || role === 'combobox') {
      const ph = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
      if (ph && ph.trim()) return ph;
    }
    return '';
  }

  function fromContent(el, ctx) {
    const sub = { recursion: true, labelledby: ctx.labelledby, hiddenOk: ctx.hiddenOk, visited: ctx.visited };
    let out = pseudo(el, '::before');
    const kids = el.shadowRoot || el.localName === 'slot' ? flatChildren(el) : el.childNodes;
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      if (k.nodeType === 3) { out += k.data; continue; }
      if (k.nodeType !== 1) continue;
      const kst = style(k);
      if (!ctx.hiddenOk && k.localName !== 'slot' && (kst.display === 'none' || ariaHidden(k) || kst.visibility !== 'visible')) continue;
      const t = textAlt(k, sub);
      if (k.localName !== 'slot' && isBlock(kst)) out += ' ' + t + ' ';
      else out += t;
    }
    out += pseudo(el, '::after');
    return norm(out);
  }

  function labelsText(el, ctx) {
    const labels = el.labels;
    if (!labels || labels.length === 0) return '';
    const parts = [];
    for (const l of labels) {
      if (!ctx.hiddenOk && isHidden(l) && !l.contains(el)) continue;
      const visited = new Set(ctx.visited);
      visited.add(el);
      parts.push(fromContent(l, { recursion: true, visited, hiddenOk: false }));
    }
    return norm(parts.join(' '));
  }

  function nativeName(el, tag, role, ctx) {
    switch (tag) {
      case 'input': {
        const type = (el.getAttribute('type') || 'text').toLowerCase();
        if (type === 'image') {
          return el.getAttribute('alt') || labelsText(el, ctx) || el.getAttribute('value') || el.getAttribute('title') || 'Submit';
        }
        if (type === 'submit' || type === 'reset' || type === 'button') {
          const v = el.getAttribute('value');
          if (v !== null && v !== '') return v;
          const l = labelsText(el, ctx);
          if (l) return l;
          if (type === 'submit') return 'Submit';
          if (type === 'reset') return 'Reset';
          return '';
        }
        return labelsText(el, ctx);
      }
      case 'textarea': case 'select': case 'meter': case 'progress': case 'output': case 'button':
        return labelsText(el, ctx);
      case 'img': case 'area': {
        const a = el.getAttribute('alt');
        return a ? a : '';
      }
      case 'fieldset': {
        const lg = el.querySelector(':scope > legend');
        return lg ? fromContent(lg, { recursion: true, visited: ctx.visited }) : '';
      }
      case 'table': {
        const c = el.querySelector(':scope > caption');
        return c ? fromContent(c, { recursion: true, visited: ctx.visited }) : '';
      }
      case 'figure': {
        const c = el.querySelector(':scope > figcaption');
        return c ? fromContent(c, { recursion: true, visited: ctx.visited }) : '';
      }
      case 'svg': {
        for (const c of el.children) if (c.localName === 'title') return norm(c.textContent);
        return '';
      }
      case 'optgroup': return el.getAttribute('label') || '';
      case 'option': return el.getAttribute('label') || '';
      default: return '';
    }
  }

  // flatChildren returns el's children in the flat tree: a shadow host's
  // shadow root children, a slot's assigned nodes (or its fallback content).
  function flatChildren(el) {
    if (el.shadowRoot) return Array.from(el.shadowRoot.childNodes);
    if (el.localName === 'slot') {
      const a = el.assignedNodes({ flatten: false });
      return a.length ? a : Array.from(el.childNodes);
    }
    return el.childNodes;
  }

  // --- states -------------------------------------------------------------

  function tristate(v) {
    if (v === null) return null;
    v = v.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'mixed') return 'mixed';
    if (v === 'false') return false;
    return null;
  }

  function states(el, tag, role) {
    const s = [];
    const set = (k, v) => { s.push(v === true ? k : k === 'expanded' ? 'collapsed' : k + '=' + v); };
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      let c = tristate(el.getAttribute('aria-checked'));
      if (tag === 'input') c = el.indeterminate ? 'mixed' : el.checked;
      if (c === true) set('checked', true);
      else if (c === 'mixed') set('checked', 'mixed');
    }
    if (role === 'button' || role === 'togglebutton') {
      const p = tristate(el.getAttribute('aria-pressed'));
      if (p === true) set('pressed', true);
      else if (p === 'mixed') set('pressed', 'mixed');
    }
    if (role === 'heading') {
      const l = parseInt(el.getAttribute('aria-level'), 10);
      set('level', l > 0 ? l : (/^h[1-6]$/.test(tag) ? Number(tag[1]) : 2));
    }
    const ex = tristate(el.getAttribute('aria-expanded'));
    if (ex !== null) set('expanded', ex === true ? true : 'false');
    else if (role === 'DisclosureTriangle') set('expanded', el.parentElement && el.parentElement.open ? true : 'false');
    if (role === 'option' || role === 'tab' || role === 'row' || role === 'gridcell' || role === 'treeitem') {
      const sel = tag === 'option' ? el.selected : tristate(el.getAttribute('aria-selected')) === true;
      if (sel) set('selected', true);
    }
    if (('disabled' in el && el.matches(':disabled')) || tristate(el.getAttribute('aria-disabled')) === true) set('disabled', true);
    if ((tag === 'input' || tag === 'textarea' || tag === 'select') && el.required) set('required', true);
    return s.length ? s.join(',') : null;
  }

  // --- the walk -----------------------------------------------------------

  function localId(el) {
    let id = ids.get(el);
    if (!id) { id = nextId++; ids.set(el, id); }
    live.set(id, el);
    return id;
  }

  function inViewport(el) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return true; // may have overflowing children
    const w = el.ownerDocument.defaultView;
    return r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
  }

  // push appends a child to out, merging runs of text.
  function pushText(out, t) {
    if (!t) return;
    const last = out.length - 1;
    if (last >= 0 && typeof out[last] === 'string') out[last] += t;
    else out.push(t);
  }

  const BREAK = 0; // marks a block boundary between runs of text

  function visitChildren(el, out, visible) {
    if (el.shadowRoot || el.localName === 'slot') {
      for (const k of flatChildren(el)) visit(k, out, visible);
      return;
    }
    if (S.interactive) {
      // No text in an interactive-only snapshot: only elements matter,
      // and skipping the text nodes spares the isolated world their
      // wrappers.
      for (let k = el.firstElementChild; k; k = k.nextElementSibling) visit(k, out, visible);
      return;
    }
    for (let k = el.firstChild; k; k = k.nextSibling) visit(k, out, visible);
  }

  function visit(node, out, visible) {
    if (node.nodeType === 3) {
      if (visible && !S.inLabel && !S.interactive) pushText(out, node.data);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    S.count++;
    if (S.modal && !el.contains(S.modal) && !S.modal.contains(el)) return;
    if (ariaHidden(el) || el.inert) return;
    const st = style(el);
    if (st.display === 'none') return;
    if (S.viewport && !inViewport(el)) return;
    const parentCursor = S.cursor;
    S.cursor = st.cursor;
    visitElement(el, tag, st, parentCursor, out, visible);
    S.cursor = parentCursor;
  }

  function visitElement(el, tag, st, parentCursor, out, visible) {
    const vis = st.visibility === 'visible';
    if (tag === 'slot') { visitChildren(el, out, visible); return; }
    // Text that is already a name: a table's caption, a fieldset's legend,
    // the label of a control.
    if (tag === 'caption' || (tag === 'legend' && el.parentElement && el.parentElement.localName === 'fieldset')) return;
    if (tag === 'label' && el.control && !S.inLabel) {
      S.inLabel = true;
      visitChildren(el, out, false);
      S.inLabel = false;
      return;
    }
    if (!vis) { // hidden itself; visible descendants stay
      visitChildren(el, out, false);
      return;
    }
    let role = roleOf(el, tag);
    if (tag === 'iframe' || tag === 'frame') {
      const n = textAlt(el, { visited: null }) || el.getAttribute('title') || '';
      out.push({ r: 'iframe', n: norm(n), f: S.frames.push(el) - 1 });
      return;
    }
    // Block boundaries only separate runs of text, which an
    // interactive-only snapshot has none of.
    const block = !S.interactive && isBlock(st);
    let interactive = INTERACTIVE.has(role);
    if (role === 'option' && el.closest('select,datalist')) interactive = false;
    if (!interactive && !S.inClickable && (focusable(el) || el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable) || el.hasAttribute('onclick') ||
      (st.cursor === 'pointer' && parentCursor !== 'pointer'))) {
      if (el.isContentEditable && role === 'generic') role = 'textbox';
      interactive = role !== 'none' && role !== 'presentation' && tag !== 'body' && tag !== 'html' && tag !== 'label' && !(tag === 'svg' || el.closest('label'));
    }
    if (role === 'group' && (tag === 'details' || tag === 'optgroup') && !hasName(el) && tag !== 'optgroup') role = 'group';
    const fold = !interactive && (FOLD.has(role) || (role === 'img' && tag === 'svg' && !hasName(el) && !el.querySelector('title')) || role === 'separator' || role === 'none' || role === 'presentation');
    if (fold) {
      if (block) out.push(BREAK);
      if (role !== 'separator') {
        // Generated text is text: an interactive-only snapshot shows none,
        // so it skips the two style lookups.
        const b = S.interactive ? '' : pseudo(el, '::before');
        if (b) pushText(out, b);
        visitChildren(el, out, !S.inLabel);
        const a = S.interactive ? '' : pseudo(el, '::after');
        if (a) pushText(out, a);
      }
      if (block) out.push(BREAK);
      return;
    }
    if (S.interactive && !interactive && !CONTEXT.has(role)) {
      visitChildren(el, out, false);
      return;
    }
    const n = { r: role };
    const name = NO_NAME.has(role) ? '' : norm(textAlt(el, { visited: null }));
    if (name) n.n = name;
    if (interactive || S.allIds) n.i = localId(el);
    const s = states(el, tag, role);
    if (s) n.s = s;
    if (role === 'link' && el.href && !S.interactive) {
      const h = String(el.href);
      n.u = h.startsWith(S.origin + '/') ? h.slice(S.origin.length) : h;
    }
    const v = controlValue(el, role);
    if (v !== null && v !== '' && role !== 'progressbar' && role !== 'meter' || (role === 'progressbar' || role === 'meter') && v) {
      n.v = (el.type === 'password') ? '•'.repeat(Math.min(v.length, 8)) : norm(String(v));
      if (n.v === '') delete n.v;
    }
    const leaf = tag === 'input' || tag === 'textarea' || tag === 'img' || (role === 'img');
    if (!leaf) {
      const kids = [];
      const wasClickable = S.inClickable;
      if (interactive) S.inClickable = true;
      const b = S.interactive ? '' : pseudo(el, '::before');
      if (b) pushText(kids, b);
      const wasLabel = S.inLabel;
      S.inLabel = false;
      visitChildren(el, kids, true);
      S.inLabel = wasLabel;
      const a = S.interactive ? '' : pseudo(el, '::after');
      if (a) pushText(kids, a);
      S.inClickable = wasClickable;
      const c = tidy(kids);
      if (c.length) n.c = c;
    }
    if (block) out.push(BREAK);
    out.push(n);
    if (block) out.push(BREAK);
  }

  // tidy merges text runs across breaks, normalises white space and drops
  // the break markers.
  function tidy(kids) {
    const out = [];
    for (const k of kids) {
      if (k === BREAK) { out.push(BREAK); continue; }
      if (typeof k === 'string') {
        const last = out.length - 1;
        if (last >= 0 && typeof out[last] === 'string') out[last] += k;
        else out.push(k);
        continue;
      }
      out.push(k);
    }
    const res = [];
    for (const k of out) {
      if (k === BREAK) continue;
      if (typeof k === 'string') {
        const t = norm(k);
        if (t) res.push(t);
        continue;
      }
      res.push(k);
    }
    return res;
  }

  function hasPseudoRules(doc) {
    const check = (sheets) => {
      for (const sh of sheets) {
        let rules;
        try { rules = sh.cssRules; } catch (e) { return true; }
        for (const r of rules) {
          const t = r.cssText;
          if (t.includes(':before') || t.includes(':after')) return true;
        }
      }
      return false;
    };
    if (check(doc.styleSheets) || check(doc.adoptedStyleSheets || [])) return true;
    // Shadow roots carry their own sheets.
    const walker = doc.createTreeWalker(doc, NodeFilter.SHOW_ELEMENT);
    for (let e = walker.nextNode(); e; e = walker.nextNode()) {
      const sr = e.shadowRoot;
      if (sr && (check(sr.styleSheets) || check(sr.adoptedStyleSheets || []))) return true;
    }
    return false;
  }

  function snapshot(opts, scope) {
    const t0 = performance.now();
    const doc = document;
    S = {
      frames: [], count: 0, cursor: 'auto', viewport: !!opts.viewport, inClickable: false,
      modal: null, pseudo: true, inLabel: false, allIds: !!opts.allIds, interactive: !!opts.interactive, origin: location.origin,
    };
    try { S.modal = doc.querySelector(':modal'); } catch (e) { S.modal = null; }
    S.pseudo = hasPseudoRules(doc);
    if (scope && scope.ownerDocument !== doc) return ['wrong-frame'];
    live = new Map();
    const top = [];
    const start = scope || doc.body || doc.documentElement;
    if (start) {
      if (scope && isHidden(scope)) {
        // A hidden scope shows nothing.
      } else if (scope) {
        visit(scope, top, true);
      } else {
        visitChildren(start, top, true);
      }
    }
    const lines = [];
    emit(tidy(top), 0, lines);
    const frames = S.frames;
    const head = [S.count, Math.round(performance.now() - t0), frames.length, location.origin, doc.URL, doc.title.replace(/\s+/g, ' ')].join('\t');
    S = null;
    return [head + '\n' + lines.join('\n'), ...frames];
  }

  // emit writes the tree as one record per line, fields split by tabs
  // (names and text are white-space-normalised, so they hold neither):
  //   depth, role ("" for text), name or text, local id, states, url, value, frame index
  function emit(nodes, depth, lines) {
    for (const n of nodes) {
      if (typeof n === 'string') { lines.push(depth + '\t\t' + n); continue; }
      let rec = depth + '\t' + n.r + '\t' + (n.n || '') + '\t' + (n.i || '') + '\t' + (n.s || '') + '\t' + (n.u || '') + '\t' + (n.v || '') + '\t' + (n.f === undefined ? '' : n.f);
      let end = rec.length;
      while (rec.charCodeAt(end - 1) === 9) end--;
      lines.push(end === rec.length ? rec : rec.slice(0, end));
      if (n.c) emit(n.c, depth + 1, lines);
    }
  }

  // resolve returns the element with a local id from the latest snapshot.
  function resolve(id) {
    const el = live.get(id);
    return el || null;
  }

  // localOf returns an element's local id: not 0 when a snapshot of this
  // document gave it a ref (the latest one, or an earlier one).
  function localOf(el) {
    return ids.get(el) || 0;
  }

  return { snapshot, resolve, localOf };
})
