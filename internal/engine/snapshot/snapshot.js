// snapshot.js runs in egohost's isolated world of one frame (the page's own
// scripts cannot see it). It walks the frame's document in the flat tree
// (open shadow roots, slots) and returns a compact tree of roles, names,
// states and values as one string; it reads the page through the page
// module (internal/engine/aria/aria.js, `ns` below), as the locator engine does, so a
// snapshot shows what locators match. Elements an agent can act on get a
// local id that is stable for the life of the document (a WeakMap keeps
// it), so Go can map it to a tab-wide ref without fetching backendNodeIds
// up front: lookup and resolve hand elements back when refs are used, and
// localOf says which element had one.
//
// This file is one expression whose value is the entry point (see its
// ops at the end); egohost's world keeps it (aria.Keep), and with it the
// ids, for the life of the document.
// Tree node shapes (short keys keep the bytes that cross chrome.debugger few):
//   "text"                                   a run of text
//   {r: role, n: name, i: localId, s: {...}, c: [children], v: value, u: url, b: text beside, h: column header, t: title, o: options}
//   {r: "iframe", n: name, f: index}         a child frame placeholder (index into frames)
(() => {
  'use strict';

  const ids = new WeakMap(); // element → local id, stable per document
  let nextId = 1;
  let live = new Map(); // local id → element, for the latest snapshot

  // Roles an agent acts on: these get refs.
  const INTERACTIVE = new Set([
    'button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'option', 'checkbox', 'radio',
    'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
    'treeitem', 'DisclosureTriangle',
  ]);
  // Roles the text tree folds into their parent (their text stays).
  const FOLD = new Set([
    'generic', 'none', 'presentation', 'paragraph', 'code', 'deletion', 'emphasis', 'insertion',
    'mark', 'strong', 'subscript', 'superscript', 'time', 'term', 'definition', 'LabelText', 'legend',
    'blockquote', 'caption', 'rowgroup', 'sectionfooter', 'sectionheader', 'abbr', 'figure', 'group-unnamed',
    'Audio', 'DescriptionList', 'LineBreak', 'Ruby', 'Video',
  ]);
  // Roles whose name is their text (render.go's fromContent, which a test
  // keeps equal): a named one with no element inside has its text
  // children left out of the text, so the walk does not gather them.
  const FROM_CONTENT = new Set([
    'button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'heading',
    'cell', 'gridcell', 'columnheader', 'rowheader', 'checkbox', 'radio', 'switch', 'treeitem',
    'tooltip', 'DisclosureTriangle', 'doc-backlink', 'doc-biblioref', 'doc-glossref', 'doc-noteref',
    'doc-subtitle', 'graphics-object',
  ]);
  // Roles kept as context lines in interactive-only snapshots.
  const CONTEXT = new Set([
    'banner', 'main', 'navigation', 'contentinfo', 'complementary', 'region', 'form', 'search',
    'dialog', 'alertdialog', 'heading', 'menu', 'menubar', 'tablist', 'tabpanel', 'tree', 'grid',
    'treegrid', 'toolbar', 'radiogroup', 'iframe', 'table', 'row', 'listbox', 'group',
  ]);

  // Per-snapshot state: the walk's (S), the page module (ns) and its view
  // of the document (A).
  let S = null;
  let ns = null;
  let A = null;

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
      for (const k of ns.flatChildren(el)) visit(k, out, visible);
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
    if (ns.SKIP.has(tag)) return;
    S.count++;
    if (S.modal && !el.contains(S.modal) && !S.modal.contains(el)) return;
    if (ns.ariaHidden(el) || el.inert) return;
    const st = ns.style(el);
    if (st.display === 'none') return;
    if (S.viewport && !inViewport(el)) return;
    // The parent's style, whose cursor is read only when a child's is a
    // pointer (most elements need neither: their role says what they are).
    const parentStyle = S.style;
    S.style = st;
    visitElement(el, tag, st, parentStyle, out, visible);
    S.style = parentStyle;
  }

  function visitElement(el, tag, st, parentStyle, out, visible) {
    // An interactive-only snapshot reads visibility only of the elements it
    // would show (shown below): the others' children are visited the same
    // either way.
    const vis = S.interactive || st.visibility === 'visible';
    if (tag === 'slot') { visitChildren(el, out, visible); return; }
    // Text that is already a name: a table's caption, a fieldset's legend,
    // the label of a control. Their elements stay (a link in a legend
    // opens Adminer's fieldsets), their text does not.
    if (tag === 'caption' || (tag === 'legend' && el.parentElement && el.parentElement.localName === 'fieldset') ||
      tag === 'label' && el.control && !S.inLabel) {
      if (!el.firstElementChild && !el.shadowRoot) return;
      const was = S.inLabel;
      S.inLabel = true;
      visitChildren(el, out, false);
      S.inLabel = was;
      return;
    }
    if (!vis) { // hidden itself; visible descendants stay
      visitChildren(el, out, false);
      return;
    }
    let role = A.role(el);
    if (tag === 'iframe' || tag === 'frame') {
      if (!shown(st)) { visitChildren(el, out, false); return; }
      const n = A.name(el) || el.getAttribute('title') || '';
      out.push({ r: 'iframe', n: ns.norm(n), f: S.frames.push(el) - 1 });
      return;
    }
    // Block boundaries only separate runs of text, which an
    // interactive-only snapshot has none of.
    const block = !S.interactive && ns.isBlock(st);
    let interactive = INTERACTIVE.has(role);
    let focusOnly = false;
    let drawn = false; // one to act on by its pointer or handler alone (not its role, not focusable)
    if (role === 'option' && el.closest('select,datalist')) interactive = false;
    // A pointer cursor or an onclick makes an element one to act on only
    // when there is something to click: not an empty anchor with no box
    // (MediaWiki's <a id="top"></a>, under a pointer cursor on every page),
    // nor the empty picture a widget draws beside its own control.
    if (!interactive && !S.inClickable && (ns.focusable(el) || el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable) ||
      (el.hasAttribute('onclick') || st.cursor === 'pointer' && !(parentStyle && parentStyle.cursor === 'pointer') && !drawnFor(el)) && ns.visible(el))) {
      if (el.isContentEditable && role === 'generic') role = 'textbox';
      interactive = role !== 'none' && role !== 'presentation' && tag !== 'body' && tag !== 'html' && tag !== 'label' && !(tag === 'svg' || el.closest('label'));
      // Focusable and nothing more (no handler, no pointer): a list or a
      // table a page lets the keys move in (Roundcube's mail list, given
      // a tabindex once it is searched), whose own clickable parts (each
      // mail's flag) stay elements of their own.
      focusOnly = interactive && !el.isContentEditable && !el.hasAttribute('onclick') && st.cursor !== 'pointer';
      drawn = interactive && !focusOnly && !el.isContentEditable && !ns.focusable(el);
    }
    if (role === 'group' && (tag === 'details' || tag === 'optgroup') && !A.hasName(el) && tag !== 'optgroup') role = 'group';
    // Set lookups first: reading a computed style's visibility costs more.
    if (S.interactive && !interactive && !S.inMessage) {
      if (S.messages.has(el) && shown(st) && message(el, role, out)) return;
      if (S.noticed < NOTICE_MAX && S.notices.has(el) && shown(st) && message(el, role, out)) {
        S.noticed++;
        return;
      }
    }
    const fold = !interactive && (FOLD.has(role) || (role === 'img' && tag === 'svg' && !A.hasName(el) && !el.querySelector('title')) || role === 'separator' || role === 'none' || role === 'presentation');
    if (fold) {
      if (block) out.push(BREAK);
      if (role !== 'separator') {
        // Generated text is text: an interactive-only snapshot shows none,
        // so it skips the two style lookups.
        const b = S.interactive ? '' : A.pseudo(el, '::before');
        if (b) pushText(out, b);
        visitChildren(el, out, !S.inLabel);
        const a = S.interactive ? '' : A.pseudo(el, '::after');
        if (a) pushText(out, a);
      }
      if (block) out.push(BREAK);
      return;
    }
    if (S.interactive && !(interactive || CONTEXT.has(role)) || !shown(st)) {
      visitChildren(el, out, false);
      return;
    }
    const n = { r: role };
    const name = ns.NO_NAME.has(role) ? '' : A.name(el, true); // visit skipped the hidden
    if (name) n.n = name;
    if (interactive || S.allIds) n.i = localId(el);
    const s = ns.states(el, role);
    if (s) n.s = s;
    // S.urls first: reading a link's href builds its absolute URL (7 % of
    // the interactive walk's CPU samples on the 5,000-item list).
    if (S.urls && role === 'link' && el.href) {
      n.u = shortURL(String(el.href));
    }
    const v = A.value(el, role);
    if (v !== null && v !== '' && role !== 'progressbar' && role !== 'meter' || (role === 'progressbar' || role === 'meter') && v) {
      n.v = ns.norm(String(v)); // a password's bullets (A.value)
      if (n.v === '') delete n.v;
    }
    // A field of an older page often has no label, only text beside it
    // (Fossil's "Name of new wiki page: <input>", "<input type=checkbox>
    // Remember me"); an interactive-only snapshot, which shows no text,
    // shows that text with the field, so an agent knows what it is for.
    if (S.interactive && interactive && !name && VALUE_ROLES.has(role)) {
      const cell = el.closest('td,th');
      const h = cell && columnHeader(cell);
      if (h) n.h = h; // in a table, its column says what it is
      else {
        const b = beside(el, role === 'checkbox' || role === 'radio' || role === 'switch');
        if (b) n.b = b;
      }
    }
    // A <select>'s options, which an interactive-only snapshot otherwise
    // leaves out (they are no elements to act on by themselves), so an
    // agent knows what it can select: their labels when they are few
    // (OPTIONS_MAX), else how many.
    if (S.interactive && tag === 'select') n.o = optionsOf(el);
    const leaf = tag === 'input' || tag === 'textarea' || tag === 'img' || (role === 'img') ||
      (name && FROM_CONTENT.has(role) && el.firstElementChild === null && !el.shadowRoot);
    if (!leaf) {
      const kids = [];
      const wasClickable = S.inClickable;
      if (interactive && !focusOnly) S.inClickable = true;
      const b = S.interactive ? '' : A.pseudo(el, '::before');
      if (b) pushText(kids, b);
      const wasLabel = S.inLabel;
      S.inLabel = false;
      visitChildren(el, kids, true);
      S.inLabel = wasLabel;
      const a = S.interactive ? '' : A.pseudo(el, '::after');
      if (a) pushText(kids, a);
      S.inClickable = wasClickable;
      const c = tidy(kids);
      // A clickable box drawn around one control and nothing else of its
      // own (ExtJS draws each toolbar button as a <table class=x-btn>,
      // cursor:pointer, around its <button>: Deluge's "table @9" over
      // "button "Preferences" @10") is that control: its line alone. (Not
      // one with a tooltip of its own: Transmission's tabs, a titled div
      // around an empty link.)
      const sole = S.interactive && drawn && !name && !el.getAttribute('title') ? soleControl(c) : null;
      if (sole && ns.norm(String(el.innerText || '')) === ns.norm(String(live.get(sole.i).innerText || ''))) {
        live.delete(n.i);
        if (block) out.push(BREAK);
        out.push(sole);
        if (block) out.push(BREAK);
        return;
      }
      if (c.length) n.c = c;
      // An interactive-only snapshot shows no text: a row's name from its
      // content (as Playwright names rows, and role=row[name=…] matches
      // it) says which row its controls are in. Only a row with something
      // to act on is shown.
      if (!name && role === 'row' && S.interactive && hasRef(c)) {
        const rn = A.rowName(el);
        if (rn) n.n = rn;
      }
      // An element to act on with no name (a message box that closes on a
      // click, a div with a handler) is known by its text, which an
      // interactive-only snapshot otherwise leaves out: its start (the
      // line shows 80 characters), rendered text only (innerText: what is
      // hidden stays out, as in a full snapshot).
      // Not a <select>'s: its text is every option's, not what it holds
      // (phpMyAdmin's function menus, nothing chosen, showed "ABS ACOS
      // AES_DECRYPT …" as if chosen); its options are listed as such
      // (optionsOf).
      if (S.interactive && interactive && !name && n.v === undefined && !hasRef(c) && tag !== 'select') {
        const t = ns.norm(String(el.innerText || '').slice(0, 400));
        if (t) n.c = [t, ...c];
      } else if (S.interactive && interactive && n.v === undefined && el.isContentEditable &&
        !(el.parentElement && el.parentElement.isContentEditable)) {
        // A named editor that is no text box (a block editor's paragraph,
        // role document "Paragraph block") holds what was typed into it:
        // its start is its value, as a text box's is.
        const t = ns.norm(String(el.innerText || '').slice(0, 400));
        if (t) n.v = t.length > EDITOR_MAX ? t.slice(0, EDITOR_MAX) + '…' : t;
      }
    }
    // An element to act on with no name and no text at all: its tooltip,
    // which no name of a generic carries (Transmission's toolbar of drawn
    // buttons, <div title="Open Torrent">, and its inspector's tabs, a
    // <div title="Peers"> around an empty link); else an empty link's URL,
    // the one thing that tells it apart.
    // (The attribute tests first: a list a click handler watches as a
    // whole may hold thousands of items, whose text is not read again.)
    if (S.interactive && interactive && !name && n.v === undefined && !leaf) {
      const tipped = titled(el);
      if ((tipped || role === 'link' && el.hasAttribute('href')) && !(el.innerText || '').trim()) {
        const title = tipped ? ns.norm(tipped.getAttribute('title')) : '';
        if (title) n.t = title.slice(0, 400);
        else if (role === 'link' && el.href) n.u = shortURL(String(el.href));
      }
      // With nothing else to tell it by, an icon's class names that say
      // what it does (Roundcube's recipient remove button, <a class="button
      // icon remove">; ExtJS's panel tools, <div class="x-tool
      // x-tool-close">): class="remove", class="x-tool-close".
      // (No n.c: no text and no element with a ref inside, as read above.)
      if (!n.t && !n.u && !n.c) {
        const k = actionClasses(el);
        if (k) n.k = k;
      }
      // An item a role alone makes one to act on, with nothing in it and
      // nothing to say (Roundcube's toolbar spacer, <li role=menuitem
      // class=spacer></li>, and the items whose only link a narrow layout
      // hides), is no element to act on: no focus, no pointer, no handler,
      // no state, not a native control (an empty <button> is an icon's).
      if (!n.c && !n.t && !n.u && !n.k && !n.s && !n.b && !n.h && INTERACTIVE.has(role) && !CONTROLS.has(tag) && !ns.focusable(el) &&
        st.cursor !== 'pointer' && !el.hasAttribute('onclick')) {
        live.delete(n.i);
        return;
      }
    }
    if (block) out.push(BREAK);
    out.push(n);
    if (block) out.push(BREAK);
  }

  // ACTION_WORDS: words of a class name that say what an icon does.
  const ACTION_WORDS = new Set(['close', 'remove', 'delete', 'del', 'trash', 'cancel', 'clear', 'dismiss', 'toggle',
    'collapse', 'expand', 'edit', 'add', 'plus', 'minus', 'new', 'create', 'menu', 'more', 'options', 'settings',
    'config', 'search', 'refresh', 'reload', 'sync', 'next', 'prev', 'previous', 'back', 'forward', 'first', 'last',
    'play', 'pause', 'stop', 'star', 'flag', 'pin', 'like', 'favorite', 'share', 'copy', 'download', 'upload',
    'save', 'print', 'attach', 'help', 'info', 'filter', 'sort', 'zoom', 'fullscreen', 'minimize', 'maximize',
    'undo', 'redo', 'send', 'reply', 'archive', 'lock', 'unlock', 'logout', 'login', 'home', 'calendar']);

  // actionClasses gives the class names of el, or of the element a chain
  // of lone children ends in, that hold a word of ACTION_WORDS (split at
  // -, _ and a lowercase-uppercase step, as notice splits them), three at
  // most: '' with none (a styling library's generated names say nothing).
  function actionClasses(el) {
    const out = [];
    for (let e = el, depth = 0; e && depth < 4 && !out.length; e = e.firstElementChild, depth++) {
      for (const token of e.classList) {
        const words = token.split(/[-_]+|(?<=[a-z])(?=[A-Z])/);
        if (words.some((w) => ACTION_WORDS.has(w.toLowerCase())) && out.length < 3) out.push(token.slice(0, 40));
      }
      if (e.firstElementChild !== e.lastElementChild) break;
    }
    return out.join(' ');
  }

  // soleControl is the one control (by its role) a walk's nodes c hold,
  // through wrappers with nothing else (a layout table's row, named by
  // that control), or null.
  function soleControl(c) {
    // Wrappers with nothing in them (an ExtJS button's border rows) are
    // passed over.
    while (c && (c = c.filter((k) => typeof k !== 'object' || k.i || k.c || k.m || k.n)).length === 1 && typeof c[0] === 'object') {
      const k = c[0];
      if (k.i) return INTERACTIVE.has(k.r) ? k : null;
      if (k.s || k.m || k.n && k.r !== 'row') return null; // a row's name is its content's
      c = k.c;
    }
    return null;
  }

  // titled gives the element whose tooltip says what el is: el, or the
  // one element a chain of lone children ends in (Roundcube's flag,
  // <span class=flag><span title="Not Flagged"></span></span>, clickable
  // as a whole); null with none or a hidden one. Three levels at the most: a list a click
  // handler watches as a whole is not searched.
  function titled(el) {
    for (let e = el, depth = 0; e && depth < 4; e = e.firstElementChild, depth++) {
      if (e.hasAttribute('title')) {
        if (!e.getAttribute('title').trim()) return null;
        // A hidden one's is nobody's (Roundcube's toolbar item around
        // the Compose link a narrow layout hides). Styles are read only
        // here: most elements on the way have no tooltip.
        for (let h = e; h !== el; h = h.parentElement) if (ns.style(h).display === 'none') return null;
        return e;
      }
      if (e.firstElementChild !== e.lastElementChild) return null;
    }
    return null;
  }

  // optionsOf gives a <select>'s options as a record's field: "L" and
  // their labels split by U+001F when there are at most OPTIONS_MAX of them
  // and their labels are short, else "N" and how many; '' with none.
  function optionsOf(sel) {
    const opts = sel.options;
    if (!opts || !opts.length) return '';
    if (opts.length > OPTIONS_MAX) return 'N' + opts.length;
    const labels = [];
    let size = 0;
    for (const o of opts) {
      const l = ns.norm(o.label || o.text || '').replace(/\u001f/g, '');
      size += l.length;
      if (size > OPTIONS_CHARS) return 'N' + opts.length;
      labels.push(l);
    }
    return 'L' + labels.join('\u001f');
  }
  // OPTIONS_MAX, OPTIONS_CHARS: the most options, and characters of their
  // labels, a closed <select> lists in an interactive-only snapshot; past
  // them it says how many (phpMyAdmin's function menus: 105).
  const OPTIONS_MAX = 12;
  const OPTIONS_CHARS = 240;

  // shortURL is a link's URL as a snapshot writes it: a path for one of the
  // document's origin.
  function shortURL(h) {
    return h.startsWith(S.origin + '/') ? h.slice(S.origin.length) : h;
  }

  // EDITOR_MAX: how much of a named editor's text an interactive-only
  // snapshot shows as its value.
  const EDITOR_MAX = 200;

  // VALUE_ROLES are the roles of the controls that take a value: an unnamed one
  // shows the text beside it in an interactive-only snapshot (beside).
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'spinbutton', 'slider', 'checkbox', 'radio', 'switch']);
  // BESIDE_MAX: how much of the text beside a field the snapshot shows.
  const BESIDE_MAX = 80;
  // BESIDE_STOPS: what the text beside a field does not reach past: a line
  // break, a rule, another control.
  const BESIDE_STOPS = 'br,hr,input,select,textarea,button';
  // A block that gives a field its text holds no control and no link (a
  // menu or a toolbar before a field is not its label), nor is one itself.
  const NOT_A_LABEL = BESIDE_STOPS + ',a[href],[role],[tabindex],[contenteditable],[onclick],[ondblclick]';
  // SAYS: text with a letter or a digit (not ":" alone).
  const SAYS = /[\p{L}\p{N}]/u;

  // beside gives the text on el's line before it (after it, for a checkbox
  // or a radio, whose text follows it), up to the edge of its block, a line
  // break or another control: "Name of new wiki page:", "Markup style:"
  // (the text of a link in it too); for a field first on its line, the
  // line above it. With none, a label around it (outside). Of a longer
  // text on the field's line, the part nearest the field is kept. '' when
  // nothing with a letter or a digit is found. A checkbox with nothing
  // after it takes what is before it.
  function beside(el, after) {
    let text = '';
    let node = el;
    let stop = null;
    let above = false; // passed a line break: the field's label is on the line above
    walk: for (;;) {
      // A flex or grid row lays its items out side by side, though each
      // is a block (Fossil's "Local edits (<code>localStorage</code>):").
      const ps = node.parentElement && ns.style(node.parentElement);
      const row = !!ps && /flex|grid/.test(ps.display) && !ps.flexDirection.startsWith('column');
      for (let s = sibling(node, after); s; s = sibling(s, after)) {
        let t = '';
        if (s.nodeType === 3) {
          t = s.data;
        } else if (s.nodeType === 1) {
          if (ns.SKIP.has(s.localName)) continue;
          const st = ns.style(s);
          if (st.display === 'none') continue;
          // A field first on its line is labelled by the line above
          // ("Enter a one-line summary of the ticket:<br><input>", Fossil's
          // new ticket).
          if (s.localName === 'br' && !after && !above && !SAYS.test(text)) { above = true; continue; }
          if (s.matches(BESIDE_STOPS)) { stop = s; break walk; }
          if (s.querySelector(BESIDE_STOPS)) break walk;
          t = s.innerText || '';
          // A block ends the line, unless it shows nothing (an icon, a
          // spacer: Fossil's help button between "Local edits:" and its
          // list).
          if (ns.isBlock(st) && !row && t.trim()) { stop = s; break walk; }
        }
        text = after ? text + t : t + text;
        if (text.length > 4 * BESIDE_MAX) break walk;
      }
      const p = node.parentElement;
      if (!p || p.localName === 'label' || ns.isBlock(ps)) {
        // The edge of the field's block: a label outside it.
        if (p && !SAYS.test(text) && !above) text = outside(p, after);
        break;
      }
      node = p;
    }
    let t = ns.norm(text);
    if (!SAYS.test(t) && stop) t = labelText(stop);
    if (!SAYS.test(t)) return after ? beside(el, false) : '';
    return clipped(t, !after);
  }

  // sibling is the node after n (before it, unless after).
  function sibling(n, after) {
    return after ? n.nextSibling : n.previousSibling;
  }

  // outside gives the label before (after) block, the edge of a field's
  // block, that nothing else stands between: the first thing with text
  // before it, or before the block around it when it is the first thing
  // there, and so on out (a label in the cell or the <div> before the
  // field's; ExtJS's form item, "Move completed to:" in a <label> beside a
  // panel, a table and a cell around a checkbox, Deluge's preferences), up
  // to BESIDE_OUT levels, not out of a form, a fieldset, a section, a
  // list item or an element with a role. '' when what comes first holds a
  // control or a link, or is long (a paragraph is no label).
  function outside(block, after) {
    let node = block;
    for (let level = 0; node && level < BESIDE_OUT && !LABEL_BOUNDS.has(node.localName) && !node.hasAttribute('role'); level++) {
      for (let s = sibling(node, after); s; s = sibling(s, after)) {
        if (s.nodeType === 3) {
          if (SAYS.test(s.data)) return labelText(s);
          continue;
        }
        if (s.nodeType !== 1 || ns.SKIP.has(s.localName) || ns.style(s).display === 'none') continue;
        // A group's legend names the group, whose line says it.
        if (s.localName === 'legend' || s.matches(NOT_A_LABEL) || s.querySelector(NOT_A_LABEL)) return '';
        if (SAYS.test(s.innerText || '')) return labelText(s);
        // an icon, a clearing <div>: on to the one before
      }
      node = node.parentElement;
    }
    return '';
  }
  // BESIDE_OUT: how many blocks out outside looks.
  const BESIDE_OUT = 10;
  // LABEL_BOUNDS: what outside does not look out of: a label outside
  // them belongs to more than one field, or to none.
  const LABEL_BOUNDS = new Set(['body', 'form', 'fieldset', 'section', 'article', 'aside', 'nav', 'header', 'footer', 'main', 'dialog', 'details', 'li', 'ul', 'ol']);

  // labelText is the text of node when it can be a field's label: short
  // (BESIDE_MAX; a paragraph before a field is the page's text, as
  // DokuWiki's "…you can only view the source…" over its editor), with no
  // control or link in it. '' otherwise.
  function labelText(node) {
    if (node.nodeType === 1 && (node.matches(NOT_A_LABEL) || node.querySelector(NOT_A_LABEL))) return '';
    const t = ns.norm(node.nodeType === 3 ? node.data : node.innerText || '');
    return SAYS.test(t) && t.length <= BESIDE_MAX ? t : '';
  }

  // columnHeader gives the text of the header of cell's column, when its
  // table has a header row (a <thead>'s, or a first row of <th> cells) and
  // cell is not in it: phpMyAdmin's insert form, "Column Type Function Null
  // Value", whose unnamed fields are a row's "Function" and "Value". ''
  // without one.
  function columnHeader(cell) {
    const row = cell.parentElement;
    const table = row && row.closest('table');
    if (!table || !row.cells) return '';
    const head = table.tHead && table.tHead.rows[0] || table.rows[0];
    if (!head || head === row || head.closest('table') !== table || [...head.cells].some(c => c.localName !== 'th')) return '';
    let col = 0;
    for (const c of row.cells) {
      if (c === cell) break;
      col += c.colSpan;
    }
    let at = 0;
    for (const h of head.cells) {
      if (col < at + h.colSpan) {
        // Its name, as a role=columnheader locator matches it.
        const t = A.name(h, true);
        return SAYS.test(t) ? clipped(t, false) : '';
      }
      at += h.colSpan;
    }
    return '';
  }

  // clipped keeps BESIDE_MAX characters of t: its start, or (end) its end.
  function clipped(t, end) {
    if (t.length <= BESIDE_MAX) return t;
    return end ? '…' + t.slice(t.length - BESIDE_MAX) : t.slice(0, BESIDE_MAX) + '…';
  }

  // messages are the elements whose text a page announces when it
  // changes (role alert or status, an aria-live region): a form's "The
  // passwords do not match" (PatternFly's helper text), a "Saved" toast.
  // An interactive-only snapshot shows their text, which it otherwise
  // leaves out, so an agent sees why the form did not go through.
  const MESSAGES = '[role=alert],[role=status],output,[aria-live=polite],[aria-live=assertive]';
  // Many pages announce nothing to assistive technology and mark their
  // messages by class or id alone: Django's errornote, errorlist and
  // messagelist ("Please enter the correct username and password"),
  // WordPress's notice ("Settings saved."), DokuWiki's div.error,
  // Bootstrap's alert and invalid-feedback, Rails' #notice. NOTICES finds
  // the candidates in one query; notice keeps those with a notice word
  // in a class or the id.
  // (A substring test costs: on 20,000 elements with a class each, the
  // query takes ~20 ms, ~1 ms on a page with 2,000; the [class] and [id]
  // guards skip the elements with none at once. An id is looked at for
  // the words pages give ids to: WordPress's #login_error and #message,
  // Rails' #notice, #alert and #error_explanation.)
  const NOTICES = '[class]:is(' + ['error', 'alert', 'notice', 'warning', 'success', 'danger', 'flash', 'message', 'invalid-feedback', 'dialog', 'modal', 'dlg',
    'toast', 'snackbar', 'status'].map(w => `[class*=${w} i]`).join(',') + '),[id]:is(' +
    ['error', 'alert', 'notice', 'flash', 'message', 'toast', 'status'].map(w => `[id*=${w} i]`).join(',') + ')';
  // NOTICE_WORDS: a class's or an id's words (split at -, _ and a
  // lowercase-uppercase step) that name a message. Not "message" alone
  // (a chat's every message), nor "invalid" (Angular's ng-invalid on a
  // whole form): the plural, the list, Bootstrap's invalid-feedback.
  const NOTICE_WORDS = new Set(['error', 'errors', 'errornote', 'errorlist', 'errorbox', 'errormessage',
    'alert', 'notice', 'notices', 'warning', 'warnings', 'warningbox', 'success', 'successbox',
    'danger', 'flash', 'messages',
    // A dialog a page draws without a role (ExtJS's x-window-dlg: Deluge's
    // "Would you like to change it now?" over Yes and No; jQuery UI's
    // ui-dialog-content; Bootstrap's modal-body): its question.
    'dialog', 'modal', 'dlg',
    // A toast, a snackbar, a status bar: where a page says what an action
    // did (Fossil's #fossil-status-bar, "Saved page: [AgentPage].", and its
    // .fossil-toast-message; Bootstrap's toast-body). Not "status" alone
    // (an order's status cell, a user's login status).
    'toast', 'snackbar', 'statusbar']);
  // NOTICE_MAX: how many such elements with text a document's interactive
  // snapshot shows as messages; past it (a table whose every status cell is
  // text-success) they are the page's content, left out as text is.
  const NOTICE_MAX = 20;

  // notice says whether el's class or id names it a message. A state
  // class (is-invalid, has-error: a control or the field around it)
  // does not.
  function notice(el) {
    if (el.id === 'message') return true; // WordPress's div#message
    // Django's ul.messagelist, the token whole: a word of a longer one
    // names a mailbox (Roundcube's #messagelist-header over its toolbar,
    // #messagelist-content around the list of mails).
    if (el.classList.contains('messagelist')) return true;
    for (const token of [...el.classList, el.id]) {
      if (!token || token.startsWith('is-') || token.startsWith('has-')) continue;
      if (token === 'invalid-feedback') return true;
      const words = token.split(/[-_]+|(?<=[a-z])(?=[A-Z])/);
      for (let i = 0; i < words.length; i++) {
        const w = words[i].toLowerCase();
        if (NOTICE_WORDS.has(w) || w === 'status' && (words[i + 1] || '').toLowerCase() === 'bar') return true;
      }
    }
    return false;
  }

  // noticesOf gives the elements of doc whose class or id names them a
  // message. Of two, one inside the other, the inner one is the message
  // (Django's ul.errorlist, not the div.errors row around it and its
  // field), and an element around a field it shows is the field's box,
  // not a message (a field it hides, the prompt input of ExtJS's message
  // box, does not count); nor is a tag of SKELETON or CONTROLS, an element
  // with a role (a role alert or status is a message already: MESSAGES),
  // or one with no text (an alert's icon, i.icon-warning, is not the
  // alert) or none outside its controls (ownText). A dialog's paragraphs
  // are notices too.
  function noticesOf(doc) {
    const m = new Set();
    for (const el of doc.querySelectorAll(NOTICES)) {
      if (!SKELETON.has(el.localName) && !CONTROLS.has(el.localName) && !el.hasAttribute('role') && notice(el) &&
        el.textContent.trim()) m.add(el);
    }
    // A dialog's paragraphs say what it asks ("This cannot be undone."),
    // which its name, its title, often does not.
    for (const el of doc.querySelectorAll(DIALOG_TEXT)) {
      if (el.textContent.trim()) m.add(el);
    }
    for (const el of [...m]) {
      for (let p = el.parentElement; p; p = p.parentElement) m.delete(p);
    }
    for (const el of m) {
      if (!ownText(el) || [...el.querySelectorAll(FIELDS)].some(ns.visible) || el.querySelector(CONTENT)) m.delete(el);
    }
    return m;
  }

  // ownText says whether el has text outside its controls: a box of
  // buttons alone (a dialog's footer, Bootstrap's modal-footer) says
  // nothing of its own. (Past MESSAGE_MAX's bound it is no message.)
  function ownText(el) {
    if (el.textContent.length > 4 * MESSAGE_MAX) return false;
    const w = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = w.nextNode(); t; t = w.nextNode()) {
      if (!t.nodeValue.trim()) continue;
      const c = t.parentElement.closest(MESSAGE_CONTROLS);
      if (!c || !el.contains(c)) return true;
    }
    return false;
  }
  const FIELDS = 'input:not([type=hidden]),select,textarea';
  // CONTENT: what no message holds: a table, a grid, a tree or a list to
  // choose from is the page's content, whatever the class around it.
  const CONTENT = 'table,[role=grid],[role=treegrid],[role=table],[role=tree],[role=listbox]';
  const DIALOG_TEXT = 'dialog p,[role=dialog] p,[role=alertdialog] p';
  // CONTROLS: tags that are a control, never a message, whatever their
  // class (WordPress's button.notice-dismiss inside its notice); an
  // element with a role of its own says what it is by that.
  const CONTROLS = new Set(['a', 'button', 'input', 'select', 'textarea', 'option', 'label', 'summary', 'img', 'svg']);
  // SKELETON: tags no notice is, whatever their class says: the
  // document's frame, a form, a table and its parts (a status cell,
  // Bootstrap's td.success, is the row's content, which its name says), a
  // heading (Transmission's h2.dialog_heading is its dialog's title, a
  // heading line already).
  const SKELETON = new Set(['html', 'head', 'body', 'main', 'form', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th',
    'script', 'style', 'template', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
  // MESSAGE_MAX: a region with more text than this holds a page's content,
  // not a message (a list a page updates live): it is walked as before.
  const MESSAGE_MAX = 300;

  // message adds el's node, a message with its text (m: the line says it),
  // and its controls under it, to out; false when el says nothing now (an
  // empty region waiting for its next message) or too much.
  function message(el, role, out) {
    if ((el.textContent || '').length > 4 * MESSAGE_MAX) return false;
    let t = ns.norm(String(el.innerText || ''));
    if (!t || t.length > MESSAGE_MAX) return false;
    t = withoutTrailingControls(el, t);
    if (!t) return false;
    const n = { r: role, m: 1 };
    const name = ns.NO_NAME.has(role) ? '' : A.name(el, true);
    if (name) n.n = name;
    const kids = [];
    S.inMessage = true;
    visitChildren(el, kids, true);
    S.inMessage = false;
    n.c = [t, ...tidy(kids)];
    out.push(n);
    return true;
  }

  // withoutTrailingControls is a message's text t without the text of the
  // controls that end it, which show under it with their refs: WordPress's
  // "Settings saved." without "Dismiss this notice.", "Could not save."
  // without "Retry", Deluge's question without "Yes No". A control in the
  // middle of the text ("Please log in to go on") stays in it.
  function withoutTrailingControls(el, t) {
    const ctrls = el.querySelectorAll(MESSAGE_CONTROLS);
    for (let i = ctrls.length - 1; i >= 0; i--) {
      const c = ns.norm(String(ctrls[i].innerText || ''));
      if (!c) continue;
      if (!t.endsWith(c)) break;
      t = t.slice(0, t.length - c.length).trimEnd();
    }
    return t;
  }
  // MESSAGE_CONTROLS: what in a message is a control of its own, shown
  // under it with its ref: its text is no part of the message's
  // (ownText, withoutTrailingControls).
  const MESSAGE_CONTROLS = 'a[href],button,select,textarea,label,summary,input[type=button],input[type=submit],' +
    '[role=button],[role=link],[role=menuitem],[role=tab]';

  // drawnFor says whether el is an empty box beside a checkbox or a radio
  // button: the picture a widget draws of it (OOUI's check icon on
  // MediaWiki's edit form, Material's checkbox background), which the
  // control itself, with its name and state, stands for. (An empty icon
  // button beside a text field or a hidden input is a control of its own.)
  function drawnFor(el) {
    if (el.firstElementChild || el.textContent.trim()) return false;
    for (const s of [el.previousElementSibling, el.nextElementSibling]) {
      if (s && s.localName === 'input' && (s.type === 'checkbox' || s.type === 'radio')) return true;
    }
    return false;
  }

  // hasRef says whether a list of the walk's nodes holds an element with a
  // ref, at any depth.
  function hasRef(c) {
    for (const k of c) if (typeof k === 'object' && (k.i || k.c && hasRef(k.c))) return true;
    return false;
  }

  // shown says whether an element the walk would show is visible itself
  // (visibility: a hidden element's visible descendants stay). A full
  // snapshot has checked it already.
  function shown(st) {
    return !S.interactive || st.visibility === 'visible';
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
        const t = ns.norm(k);
        if (t) res.push(t);
        continue;
      }
      res.push(k);
    }
    return res;
  }

  function snapshot(opts, scope) {
    const t0 = performance.now();
    const doc = document;
    S = {
      frames: [], count: 0, style: null, viewport: !!opts.viewport, inClickable: false,
      modal: null, inLabel: false, allIds: !!opts.allIds, interactive: !!opts.interactive,
      urls: !!opts.urls && !opts.interactive, origin: location.origin, messages: null, notices: null, noticed: 0, inMessage: false,
    };
    A = ns.view(doc);
    try { S.modal = doc.querySelector(':modal'); } catch (e) { S.modal = null; }
    // One query, not an attribute read an element: the interactive walk
    // touches as few of them as it can.
    if (S.interactive) {
      S.messages = new Set(doc.querySelectorAll(MESSAGES));
      S.notices = noticesOf(doc);
    }
    if (scope && scope.ownerDocument !== doc) return ['wrong-frame'];
    live = new Map();
    const top = [];
    const start = scope || doc.body || doc.documentElement;
    if (start) {
      if (scope && ns.isHidden(scope)) {
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
    A = null;
    const text = head + '\n' + lines.join('\n');
    if (opts.pack > 0 && text.length >= opts.pack && typeof CompressionStream === 'function') {
      return pack(text).then((z) => [z, ...frames], () => [text, ...frames]);
    }
    return [text, ...frames];
  }

  // pack deflates the tree's text for its trip out of the page: "z:", then
  // the raw deflate stream in base64. A large snapshot's text then crosses
  // chrome.debugger and native messaging at about a fifth of its size. The
  // stream is read chunk by chunk: that settles in microtasks, so the
  // answer waits for none of the page's tasks (Response.arrayBuffer would).
  async function pack(text) {
    const cs = new CompressionStream('deflate-raw');
    const w = cs.writable.getWriter();
    w.write(new TextEncoder().encode(text)).catch(() => {});
    w.close().catch(() => {});
    const r = cs.readable.getReader();
    const parts = [];
    let size = 0;
    for (;;) {
      const { done, value } = await r.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
    const bytes = new Uint8Array(size);
    for (let i = 0, at = 0; i < parts.length; at += parts[i].length, i++) bytes.set(parts[i], at);
    if (bytes.toBase64) return 'z:' + bytes.toBase64();
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return 'z:' + btoa(bin);
  }

  // emit writes the tree as one record per line, fields split by tabs
  // (names and text are white-space-normalised, so they hold neither):
  //   depth, role ("" for text), name or text, local id, states, url, value, frame index,
  //   1 for a message (interactive-only: its first child is its text),
  //   the text beside an unnamed field, its column's header, the title of
  //   an unnamed element with no text, a closed select's options, the
  //   class names that say what an icon with nothing else does
  //   (interactive-only)
  function emit(nodes, depth, lines) {
    for (const n of nodes) {
      if (typeof n === 'string') { lines.push(depth + '\t\t' + n); continue; }
      let rec = depth + '\t' + n.r + '\t' + (n.n || '') + '\t' + (n.i || '') + '\t' + (n.s || '') + '\t' + (n.u || '') + '\t' + (n.v || '') + '\t' + (n.f === undefined ? '' : n.f) +
        '\t' + (n.m ? '1' : '') + '\t' + (n.b || '') + '\t' + (n.h || '') + '\t' + (n.t || '') + '\t' + (n.o || '') + '\t' + (n.k || ''); // a message (the walk's m); a field's text beside, its column; a title; a select's options; an icon's classes
      let end = rec.length;
      while (rec.charCodeAt(end - 1) === 9) end--;
      lines.push(end === rec.length ? rec : rec.slice(0, end));
      if (n.c) emit(n.c, depth + 1, lines);
    }
  }

  // The entry point, with egohost's calling convention (internal/engine/aria/aria.go):
  // el is the frame's document, or the element a call is about; module is
  // the page module. op says what to do:
  //   walk     the snapshot (arg: opts): [tree text, iframe elements…],
  //            or a promise of it when opts.pack asks to pack the text.
  //            Scoped to el when el is an element, or to the element of
  //            the local id opts.local (['gone'] when the latest snapshot
  //            has none).
  //   lookup   arg: a local id → [document, its element in the latest
  //            snapshot or null, whether that is still in the document].
  //   resolve  arg: local ids → [document, then per id its element in
  //            the latest snapshot, or null when it has none or it left
  //            the document].
  //   localOf  el's local id: not 0 when a snapshot of this document gave
  //            it a ref (the latest one, or an earlier one).
  return (el, module, op, arg) => {
    switch (op) {
      case 'walk': {
        // A top document still being parsed is not walked when the caller
        // says so (arg.parsed), whole or a scope in it: it waits for
        // DOMContentLoaded instead.
        const doc = el.nodeType === 9 ? el : el.ownerDocument;
        if (arg.parsed && window.top === window && doc.readyState === 'loading') return ['loading'];
        ns = module;
        let scope = el.nodeType === 9 ? null : el;
        if (arg.local) {
          scope = live.get(arg.local);
          if (!scope) return ['gone'];
        }
        return snapshot(arg, scope);
      }
      case 'lookup': {
        const found = live.get(arg) || null;
        return [document, found, !!(found && found.isConnected)];
      }
      case 'resolve':
        return [document].concat(arg.map((n) => {
          const found = live.get(n);
          return found && found.isConnected ? found : null;
        }));
      case 'localOf':
        return ids.get(el) || 0;
    }
    throw new Error('snapshot: unknown op ' + op);
  };
})()
