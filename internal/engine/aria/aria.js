// aria.js is egohost's page module: how egohost reads a page, in one place.
// It computes ARIA roles (the one Chrome gives an element, and every role
// Chrome could give it), accessible names, states and values, what is hidden
// from the accessibility tree, and visibility, for the locator engine
// (resolver/engine.js) and the snapshot walker (internal/engine/snapshot/snapshot.js) alike.
// It is installed once per egohost world of a frame (aria.go), where the
// page's own scripts cannot reach it, and it keeps no state between calls.
//
// The file is one expression whose value is the module's namespace (`ns`):
// every function egohost injects is called as fn(el, ns, ...args) (see the
// package doc in aria.go). Nothing here reads a global: the document is the
// element's (or the one passed in), so node tests run it over a small fake
// DOM (internal/engine/aria/test).
//
// Two kinds of answer live side by side, and tests keep them consistent:
//   exact      what Chrome computes: view.role, view.name, states, value
//              (what a snapshot shows);
//   superset   every role and every name string Chrome could compute:
//              roleTest, hiddenForAria, view.nameSources (what a role
//              locator's candidate search must never miss; Chrome's own
//              accessibility tree then decides).
(() => {
  'use strict';

  // ---- text ---------------------------------------------------------------

  // NO_TEXT: characters that show no text. An icon font draws its icons
  // as private-use characters (Font Awesome's \uf0c7 is a floppy disk), a
  // zero-width space or a byte order mark shows nothing: Chrome keeps them
  // in names (button "\uf0c7"), which tells an agent nothing and cannot be
  // typed back. egohost's names and text leave them out, and a name from
  // content made of nothing else is no name: the tooltip (title) names
  // the element, as it would an empty one. The supplementary private-use
  // planes (U+F0000 to U+10FFFD) are the surrogate pairs from \udb80.
  // aria.Shown (Go) is the same rule for the names Chrome gives, and
  // describe.js has a copy (TestOneNoTextRule keeps them one).
  const NO_TEXT_ANY = /[\u200b\ufeff\ue000-\uf8ff\udb80-\udbff]/;
  const NO_TEXT = /[\u200b\ufeff\ue000-\uf8ff]|[\udb80-\udbff][\udc00-\udfff]/g;

  // norm is accname's white space: runs of white space become one space;
  // and what shows no text (NO_TEXT) is left out.
  const norm = (s) => (NO_TEXT_ANY.test(s) ? s.replace(NO_TEXT, '') : s).replace(/[\s\u00a0]+/g, ' ').trim();

  // hasText says whether s has a character that shows as text; showsNoText
  // whether it has one that shows none.
  const showsNoText = (s) => NO_TEXT_ANY.test(s);
  const hasText = (s) => !!s.trim() && (!showsNoText(s) || norm(s) !== '');

  // normWS is Playwright's normalizeWhiteSpace (locator text): zero-width
  // spaces and soft hyphens dropped, trimmed, runs of white space collapsed.
  const normWS = (s) => s.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');

  // Tags that are never shown nor read as text.
  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);

  // ---- the flat tree --------------------------------------------------------

  // parentComposed is n's parent in the flat tree: its slot when slotted,
  // the host of a shadow root.
  function parentComposed(n) {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (p && p.nodeType === 11 && p.host) return p.host;
    return p;
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

  // openShadowRoots lists the open shadow roots of a document, nested ones
  // included.
  function openShadowRoots(doc) {
    const out = [];
    const visit = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) {
          out.push(el.shadowRoot);
          visit(el.shadowRoot);
        }
      }
    };
    visit(doc);
    return out;
  }

  // byId is the element an ID reference (aria-labelledby, for…) names: in
  // el's own tree (its document or shadow root), as Chrome resolves it.
  function byId(el, id) {
    const r = el.getRootNode();
    return r.getElementById ? r.getElementById(id) : el.ownerDocument.getElementById(id);
  }

  // bullets stands for a password's value wherever egohost shows one (the
  // snapshot's value, a name made of content): never the value, nor more
  // than its first 8 characters' count.
  function bullets(v) {
    return '•'.repeat(Math.min(v.length, 8));
  }

  // inputValue is an <input>'s value as egohost shows it: a password's
  // bullets.
  function inputValue(el) {
    return el.type === 'password' && el.value ? bullets(el.value) : el.value;
  }

  // editorOf returns the code editor whose key input el is: the hidden
  // textarea a CodeMirror 5 (phpMyAdmin's SQL box, Jupyter's cells) or an
  // Ace editor reads keys and text from and then empties.
  // What the editor holds is in its lines (editorText), not in el; null
  // for any other element.
  function editorOf(el) {
    if (el.localName !== 'textarea') return null;
    let root = el.closest('.CodeMirror');
    if (root) return { kind: 'CodeMirror', root, lines: '.CodeMirror-line' };
    root = el.classList.contains('ace_text-input') && el.closest('.ace_editor');
    if (root) return { kind: 'Ace', root, lines: '.ace_text-layer .ace_line' };
    return null;
  }

  // editorText is the text of an editor's lines (editorOf) as it draws
  // them: the lines it has drawn (a long text's visible part), without
  // the zero-width space an empty line holds.
  function editorText(ed) {
    return Array.from(ed.root.querySelectorAll(ed.lines), (l) => l.textContent.replace(/\u200b/g, '')).join('\n');
  }

  // ---- style and hidden -----------------------------------------------------

  function style(el, pseudo) {
    return el.ownerDocument.defaultView.getComputedStyle(el, pseudo);
  }

  function ariaHidden(el) {
    const v = el.getAttribute('aria-hidden');
    return v !== null && v.trim().toLowerCase() === 'true';
  }

  // isHidden says whether el is hidden from the accessibility tree, walking
  // up (for elements reached by reference, not by a walk that checks as it
  // goes down): aria-hidden, inert or display:none on the way, or not
  // visibility:visible itself.
  function isHidden(el) {
    for (let e = el; e; e = e.parentElement || (e.parentNode && e.parentNode.host)) {
      if (e.nodeType !== 1) continue;
      if (ariaHidden(e) || e.inert || style(e).display === 'none') return true;
    }
    return style(el).visibility !== 'visible';
  }

  // hiddenForAria is the superset side's hidden: elements Chrome certainly
  // leaves out of the accessibility tree (display:none, visibility:hidden,
  // aria-hidden, inert). Conservative: when unsure, not hidden.
  function hiddenForAria(el) {
    for (let e = el; e && e.nodeType === 1; e = parentComposed(e)) {
      if (ariaHidden(e)) return true;
      if (e.inert) return true;
    }
    const t = el.localName;
    if (t === 'option' || t === 'optgroup') return false;
    if (t === 'area' || t === 'slot') return false;
    const st = style(el);
    if (st.display === 'contents') return false;
    return !el.checkVisibility({ visibilityProperty: true });
  }

  // isBlock says whether a computed style lays its element out as a block
  // (its text then stands apart from its neighbours').
  function isBlock(st) {
    const d = st.display;
    return !(d.startsWith('inline') || d === 'contents' || d === 'ruby' || d === 'ruby-text');
  }

  // REPLACED are the elements laid out as boxes of their own even when
  // inline (and <br>, a line break).
  const REPLACED = new Set(['img', 'svg', 'canvas', 'video', 'audio', 'iframe', 'object', 'embed', 'input', 'select', 'textarea', 'button', 'meter', 'progress', 'br']);

  // ownBox says whether el's text stands apart from its neighbours' in a
  // name made of content: a block, an inline-block or other atomic inline
  // (display: inline-flex, inline-grid, inline-table), a replaced element.
  function ownBox(el, st) {
    return isBlock(st) || st.display.startsWith('inline-') || REPLACED.has(el.localName);
  }

  // visible is Playwright's isElementVisible: a box with an area, or, for
  // display:contents, a visible child or text.
  function visible(el) {
    const st = style(el);
    if (st.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && visible(c)) return true;
        if (c.nodeType === 3 && c.nodeValue.trim()) {
          const r = el.ownerDocument.createRange();
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

  // ---- generated content (::before, ::after) --------------------------------

  // pseudoContent is the text of el's ::before or ::after content, as
  // Chrome puts it in accessible names (none when the pseudo-element is
  // hidden): the strings of `content`,
  // concatenated; with an alternative text after a slash
  // (content: "★" / "Starred"), that text.
  function pseudoContent(el, which) {
    const st = style(el, which);
    // A pseudo-element its own rules hide is not rendered: no text (Cockpit's
    // login brand, `.hide-before::before { display: none }`).
    if (st.display === 'none' || st.visibility === 'hidden' || st.visibility === 'collapse') return '';
    let c = st.content;
    if (!c || c === 'none' || c === 'normal') return '';
    // An image (url(...), in image-set() too) is no text, though its URL
    // is a string: Bootstrap's content: url("data:image/svg+xml,…") icon.
    if (c.includes('url(')) c = c.replace(/url\((?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^)]*)\)/g, ' ');
    // content: "x" / "x" "y" / counter(...) / attr(...) — keep the strings.
    const out = [];
    const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
    let m;
    while ((m = re.exec(c))) out.push((m[1] ?? m[2]).replace(/\\(.)/g, '$1'));
    // "/ alt text" after a slash replaces the visible content.
    const slash = c.lastIndexOf('/');
    if (slash > 0 && out.length > 1 && /"\s*\/\s*"/.test(c)) return out[out.length - 1];
    return out.join('');
  }

  // hasPseudoRules says whether any style sheet of a document (or of its
  // open shadow roots) may give an element ::before / ::after content: when
  // none does, nobody needs to ask for it, element by element. roots lists
  // the open shadow roots; it is called only when the document's own
  // sheets generate nothing.
  function hasPseudoRules(doc, roots) {
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.selectorText !== undefined && /:(before|after)/i.test(rule.selectorText)) return true;
        if (rule.cssRules && visit(rule.cssRules)) return true;
        if (rule.styleSheet && sheet(rule.styleSheet)) return true; // @import
      }
      return false;
    };
    const sheet = (sh) => {
      let rules;
      try {
        rules = sh.cssRules;
      } catch (e) {
        return true; // a cross-origin sheet: assume it may
      }
      return !!rules && visit(rules);
    };
    const any = (sheets) => {
      for (const sh of sheets) if (sheet(sh)) return true;
      return false;
    };
    if (any(doc.styleSheets) || any(doc.adoptedStyleSheets || [])) return true;
    for (const sr of roots()) if (any(sr.styleSheets) || any(sr.adoptedStyleSheets || [])) return true;
    return false;
  }

  // ---- roles ----------------------------------------------------------------

  const DPUB_ROLES = [
    'doc-abstract', 'doc-acknowledgments', 'doc-afterword', 'doc-appendix', 'doc-backlink', 'doc-biblioentry',
    'doc-bibliography', 'doc-biblioref', 'doc-chapter', 'doc-colophon', 'doc-conclusion', 'doc-cover',
    'doc-credit', 'doc-credits', 'doc-dedication', 'doc-endnote', 'doc-endnotes', 'doc-epigraph',
    'doc-epilogue', 'doc-errata', 'doc-example', 'doc-footnote', 'doc-foreword', 'doc-glossary',
    'doc-glossref', 'doc-index', 'doc-introduction', 'doc-noteref', 'doc-notice', 'doc-pagebreak',
    'doc-pagelist', 'doc-part', 'doc-preface', 'doc-prologue', 'doc-pullquote', 'doc-qna', 'doc-subtitle',
    'doc-tip', 'doc-toc',
  ];

  // ARIA_ROLES are the role attribute's tokens Chrome honours.
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
    // DPUB-ARIA and the graphics roles, which Chrome honours and names as
    // they are spelt (Sphinx marks footnote links doc-noteref).
    ...DPUB_ROLES, 'graphics-document', 'graphics-object', 'graphics-symbol',
  ]);

  // canonRole folds synonyms: image → img, presentation → none.
  const canonRole = (r) => (r === 'image' ? 'img' : r === 'presentation' ? 'none' : r);

  const NATIVE_FOCUS = /^(button|input|select|textarea|iframe|summary)$/;
  function focusable(el) {
    if (el.tabIndex < 0) return false;
    if (el.hasAttribute('tabindex')) return true;
    const tag = el.localName;
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return true;
    return NATIVE_FOCUS.test(tag) && !el.disabled && !(tag === 'input' && el.type === 'hidden');
  }

  const GLOBAL_ARIA = ['aria-label', 'aria-labelledby', 'aria-describedby', 'aria-live', 'aria-owns', 'aria-controls', 'aria-busy', 'aria-details', 'aria-keyshortcuts', 'aria-roledescription'];
  function hasGlobalAria(el) {
    for (const a of GLOBAL_ARIA) {
      if (el.hasAttribute(a)) return true;
    }
    return false;
  }

  // explicitRole is the role attribute's role: its first token Chrome
  // knows; none/presentation yield to a focusable element or one with
  // global ARIA attributes.
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

  // INPUTS are the roles of <input> by type, in Chrome's spelling: role is
  // the one Chrome gives (a function when it depends on attributes), alts
  // every one it could give (the superset side; lower case).
  const textbox = (el) => (el.hasAttribute('list') ? 'combobox' : 'textbox');
  const INPUTS = {
    button: { role: 'button', alts: ['button'] },
    image: { role: 'button', alts: ['button'] },
    reset: { role: 'button', alts: ['button'] },
    submit: { role: 'button', alts: ['button'] },
    checkbox: { role: (el) => (el.getAttribute('switch') !== null ? 'switch' : 'checkbox'), alts: ['checkbox', 'switch'] },
    radio: { role: 'radio', alts: ['radio'] },
    range: { role: 'slider', alts: ['slider'] },
    number: { role: 'spinbutton', alts: ['spinbutton'] },
    hidden: { role: 'none', alts: ['none'] },
    file: { role: 'button', alts: ['button'] },
    color: { role: 'ColorWell', alts: ['colorwell', 'button'] },
    date: { role: 'Date', alts: ['date', 'datetime'] },
    'datetime-local': { role: 'DateTime', alts: ['datetime', 'date'] },
    month: { role: 'DateTime', alts: ['datetime', 'date'] },
    week: { role: 'DateTime', alts: ['datetime', 'date'] },
    time: { role: 'InputTime', alts: ['inputtime', 'time'] },
    search: { role: (el) => (el.hasAttribute('list') ? 'combobox' : 'searchbox'), alts: ['searchbox', 'combobox', 'textbox'] },
  };
  // Any other type (text, email, tel, url, password, unknown) is a text box.
  const TEXT_INPUT = { role: textbox, alts: ['textbox', 'combobox', 'searchbox'] };

  // inputKind is an <input>'s entry in INPUTS. Its type attribute is
  // matched as Chrome matches it: in any case, and not trimmed (type=" color"
  // is a text box).
  function inputKind(el) {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    return Object.hasOwn(INPUTS, type) ? INPUTS[type] : TEXT_INPUT;
  }

  // inputRole is the role Chrome gives an <input>.
  function inputRole(el) {
    const r = inputKind(el).role;
    return typeof r === 'function' ? r(el) : r;
  }

  // inputRoles lists every role Chrome could give an <input> (lower case).
  function inputRoles(el) {
    return inputKind(el).alts;
  }

  // TAG_ROLES lists, per tag, every role Chrome may give it without a role
  // attribute (lower case; inputs and links depend on attributes: see
  // roleTest).
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

  // KNOWN are the roles the tables above can produce, and ARIA's: for any
  // other role (one of Chrome's own, say) every element is a candidate.
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
    'tooltip', 'tree', 'treegrid', 'treeitem', 'video', ...ARIA_ROLES]);

  // INPUT_ALTS are the roles some <input> could have.
  const INPUT_ALTS = new Set([TEXT_INPUT, ...Object.values(INPUTS)].flatMap((k) => k.alts));

  // roleTest returns a test for a role (lower case, as canonRole gives it):
  // could Chrome give el that role? A superset: it never says no to an
  // element Chrome gives the role.
  function roleTest(role) {
    if (!KNOWN.has(role)) return () => true;
    const tags = new Set();
    for (const tag in TAG_ROLES) if (TAG_ROLES[tag].includes(role)) tags.add(tag);
    if (INPUT_ALTS.has(role)) tags.add('input');
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

  function inScope(el, selector) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (p.matches(selector)) return true;
    }
    return false;
  }

  const LANDMARK_SCOPES = 'article,aside,main,nav,section';

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
    // A th heads its row when the row has a td with anything in it (white
    // space counts; an empty <td></td> does not), in a thead too; else its
    // column. That is Chrome's rule, measured: <thead><tr><td> </td><th>
    // is a row header.
    const tr = el.parentElement;
    if (tr) for (const c of tr.children) if (c.localName === 'td' && c.firstChild !== null) return 'rowheader';
    return 'columnheader';
  }

  // ---- names and states: roles and names that depend on each other ---------

  // Roles whose name comes from their content (accname "name from content").
  const FROM_CONTENT = new Set([
    'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab',
    'tooltip', 'treeitem', 'DisclosureTriangle', 'term', 'caption', 'legend', 'code', 'deletion',
    'emphasis', 'insertion', 'mark', 'strong', 'subscript', 'superscript', 'time', 'sectionhead',
    'doc-backlink', 'doc-biblioref', 'doc-glossref', 'doc-noteref', 'doc-subtitle', 'graphics-object',
  ]);
  // Roles whose content Chrome leaves out of the name of an element around
  // them (a treeitem's nested group, a menuitem's submenu, a nav or a
  // figure inside a link): only their own label (aria-label, labelledby)
  // goes in. Measured on Chrome 156, role by role (the snapshot's fidelity
  // page "containers"). A <details> is a group that is not one of them;
  // a <form> is one, named or not.
  const NOT_IN_NAMES = new Set([
    'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'combobox', 'complementary',
    'contentinfo', 'dialog', 'document', 'feed', 'figure', 'grid', 'group', 'img', 'listbox', 'log', 'main',
    'marquee', 'menu', 'menubar', 'navigation', 'note', 'progressbar', 'radiogroup', 'row', 'rowgroup',
    'search', 'separator', 'status', 'table', 'tablist', 'tabpanel', 'timer', 'toolbar', 'tree', 'treegrid',
  ]);
  const TABLE_PARTS = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr']);
  // Roles that never carry an author name (ARIA prohibits naming them).
  const NO_NAME = new Set([
    'generic', 'none', 'presentation', 'paragraph', 'code', 'deletion', 'emphasis', 'insertion',
    'mark', 'strong', 'subscript', 'superscript', 'time', 'caption', 'term', 'definition', 'LabelText',
    'legend', 'blockquote', 'sectionfooter', 'sectionheader',
  ]);

  function tristate(v) {
    if (v === null) return null;
    v = v.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'mixed') return 'mixed';
    if (v === 'false') return false;
    return null;
  }

  // states lists el's states as a snapshot shows them ("checked",
  // "level=2", "expanded", "collapsed"…), joined by commas; null when none.
  function states(el, role) {
    const tag = el.localName;
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

  // view returns what egohost reads of one document during one call:
  // roles, names and values that need the call's knowledge of the page
  // (whether any style sheet generates content, the open shadow roots).
  // Make one per call: it caches what the page may change between calls.
  // roots, when given, lists the document's open shadow roots (a caller
  // that walked the document already has them).
  function view(doc, roots) {
    let shadowRoots = null;
    const rootsOf = () => shadowRoots || (shadowRoots = roots ? roots() : openShadowRoots(doc));
    let pseudoOn = null;
    // hasPseudo says whether the document's style sheets may generate
    // content (asked once per view).
    const hasPseudo = () => (pseudoOn === null ? (pseudoOn = hasPseudoRules(doc, rootsOf)) : pseudoOn);

    // pseudo is el's generated text (which: '::before' or '::after').
    function pseudo(el, which) {
      if (!hasPseudo()) return '';
      return pseudoContent(el, which);
    }

    function hasName(el) {
      const l = el.getAttribute('aria-label');
      if (l && l.trim()) return true;
      const lb = el.getAttribute('aria-labelledby');
      if (lb && lb.trim()) return labelledbyText(el, lb) !== '';
      const t = el.getAttribute('title');
      return !!(t && t.trim());
    }

    function implicitRole(el, tag) {
      switch (tag) {
        case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
        case 'article': return 'article';
        case 'audio': return 'Audio';
        case 'aside': return inScope(el, 'article,aside,nav,section') && !hasName(el) ? 'generic' : 'complementary';
        case 'blockquote': return 'blockquote';
        case 'br': return 'LineBreak';
        case 'button': return 'button';
        case 'caption': return 'caption';
        case 'code': return 'code';
        case 'datalist': return 'listbox';
        case 'dd': return 'definition';
        case 'del': case 's': return 'deletion';
        case 'details': return 'group';
        case 'dfn': case 'dt': return 'term';
        case 'dialog': return 'dialog';
        case 'dl': return 'DescriptionList';
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
        case 'ruby': return 'Ruby';
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
        case 'video': return 'Video';
        case 'iframe': case 'frame': return 'iframe';
        case 'html': case 'body': return 'generic';
        default: return 'generic';
      }
    }

    // role is the role Chrome gives el, in Chrome's spelling (ARIA's roles
    // in lower case, Chrome's own as its accessibility tree writes them:
    // ColorWell, DisclosureTriangle, LabelText…).
    function role(el) {
      return explicitRole(el) || implicitRole(el, el.localName);
    }

    // --- accessible names (accname 1.2, as Chrome implements it) ---------

    // labelledbyText is the text of the elements el's aria-labelledby
    // (value) names; not those an outer name's walk has visited already
    // (a row's name from its content, whose first cell labels the field
    // in its second: Playwright's row "User ID:", not "User ID: User ID:").
    function labelledbyText(el, value, visited) {
      const parts = [];
      for (const id of value.trim().split(/\s+/)) {
        const ref = byId(el, id);
        if (ref && !(visited && visited.has(ref))) parts.push(textAlt(ref, { labelledby: true, visited: new Set([el]), hiddenOk: isHidden(ref) }));
      }
      return norm(parts.join(' '));
    }

    // value is a control's value as its name and a snapshot show it (a
    // password's bullets, never the value); null for an element that is
    // not a control.
    function value(el, role) {
      const tag = el.localName;
      // A file input's files, by name (Chrome's value too; with none
      // chosen, Chrome's localised "No file chosen", left out here).
      if (tag === 'input' && el.type === 'file') {
        return el.files && el.files.length ? Array.from(el.files, (f) => f.name).join(', ') : null;
      }
      if (role === 'textbox' || role === 'searchbox') {
        if (tag === 'input') return inputValue(el);
        if (tag === 'textarea') {
          const ed = editorOf(el);
          return ed ? editorText(ed) : el.value;
        }
        return el.textContent;
      }
      if (role === 'combobox' || role === 'listbox') {
        if (tag === 'select') {
          const o = el.selectedOptions;
          return Array.from(o).map((x) => norm(x.label || x.textContent)).join(' ');
        }
        if (tag === 'input' || tag === 'textarea') return el.value;
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
    // ctx: {recursion, labelledby, hiddenOk, visited, isRootOfLabel}
    function textAlt(el, ctx) {
      if (el.nodeType === 3) return el.data;
      if (el.nodeType !== 1) return '';
      if (ctx.visited) {
        if (ctx.visited.has(el)) return '';
        ctx.visited.add(el);
      }
      const tag = el.localName;
      if (SKIP.has(tag)) return '';
      if (!ctx.hiddenOk && !ctx.shown && (ariaHidden(el) || style(el).display === 'none')) return '';
      const role = explicitRole(el) || implicitRole(el, tag);
      const inner = ctx.recursion || ctx.labelledby;

      // 2B: aria-labelledby (not while following another labelledby).
      if (!ctx.labelledby) {
        const lb = el.getAttribute('aria-labelledby');
        if (lb && lb.trim()) {
          const t = labelledbyText(el, lb, ctx.visited);
          if (t) return (ctx.src = 'other'), t;
        }
      }
      // Inside another element's name, a container (NOT_IN_NAMES) gives its
      // label only (2B, 2D; an image its alt): not its content, nor a label
      // made of content (a figure's caption, a fieldset's legend). Chrome's
      // native <table> may be a layout table, which is no container: only
      // an explicit table role counts.
      const contained = !!ctx.recursion && (tag === 'form' ||
        NOT_IN_NAMES.has(role) && tag !== 'details' && !(TABLE_PARTS.has(tag) && !el.hasAttribute('role')));
      // 2C: an embedded control inside another element's name gives its value
      // (a <progress> or <meter> its number); Chrome gives a combobox that is
      // not a <select> or an <input> its label only (2D), never its option.
      if (inner && !ctx.isRootOfLabel && !(role === 'combobox' && tag !== 'select' && tag !== 'input')) {
        // (A password is its bullets: value, inputValue.)
        const v = tag === 'progress' || tag === 'meter' ? String(el.value) : value(el, role);
        if (v !== null && role !== 'button') {
          const l = el.getAttribute('aria-label');
          if (!(ctx.labelledby && ctx.visited.size === 1 && l)) return (ctx.src = 'other'), v;
        }
      }
      // 2D: aria-label.
      const label = el.getAttribute('aria-label');
      if (label && label.trim() && !(NO_NAME.has(role) && !inner)) return (ctx.src = 'other'), label;

      // 2E: the host language's own label.
      if (role !== 'none' && role !== 'presentation' && !(contained && (tag === 'figure' || tag === 'fieldset'))) {
        const n = nativeName(el, tag, role, ctx);
        if (n) return (ctx.src = 'other'), n;
      }
      // 2F: name from content; inside another element's name, not the
      // content of a container.
      if ((inner && !contained) || FROM_CONTENT.has(role) || tag === 'label' || tag === 'legend' || tag === 'caption' || tag === 'figcaption') {
        if (!(role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'listbox' || tag === 'select')) {
          const t = fromContent(el, ctx);
          if (hasText(t)) return t; // an icon font's glyph alone is no name (NO_TEXT)
        }
      }
      // 2I: tooltip attribute, then placeholder.
      const title = el.getAttribute('title');
      if (title && title.trim()) return (ctx.src = 'other'), title;
      if (role === 'textbox' || role === 'searchbox' || role === 'combobox') {
        const ph = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
        if (ph && ph.trim()) return (ctx.src = 'other'), ph;
      }
      return '';
    }

    // fromContent is el's text from its content, white space as it is: a
    // child's text goes into its parent's as it stands, so that the space
    // at the end of <span>7. </span> still separates it from the text
    // after it ("7. Input", as Chrome names it), and only the whole name is
    // white-space-normalised (name()).
    function fromContent(el, ctx) {
      let out = pseudo(el, '::before');
      if (el.firstElementChild === null && !el.shadowRoot && el.localName !== 'slot') {
        // Only text inside (most buttons and links): their text is the
        // element's textContent (comments left out, as below), read in one
        // call instead of one wrapper per text node.
        return out + el.textContent + pseudo(el, '::after');
      }
      const sub = { recursion: true, labelledby: ctx.labelledby, hiddenOk: ctx.hiddenOk, visited: ctx.visited };
      const kids = el.shadowRoot || el.localName === 'slot' ? flatChildren(el) : el.childNodes;
      // A closed <details> shows its summary only.
      const closed = el.localName === 'details' && !el.open;
      let summary = false;
      // Chrome puts a space between two children when either is a box of
      // its own (a block, an inline-block, a replaced element such as an
      // image or a form control, a line break) or when their text comes
      // from different sources (content, or a label such as aria-label or
      // alt): <span>A</span>B is "AB", <span aria-label=A>x</span>B and
      // <img alt=A>B are "A B". Measured on Chrome 156.
      let prevSrc = '';
      for (let i = 0; i < kids.length; i++) {
        const k = kids[i];
        if (closed) {
          if (k.nodeType !== 1 || k.localName !== 'summary' || summary) continue;
          summary = true;
        }
        if (k.nodeType === 3) {
          if (prevSrc === 'other') out += ' ';
          out += k.data;
          prevSrc = 'contents';
          continue;
        }
        if (k.nodeType !== 1) continue;
        const kst = style(k);
        if (!ctx.hiddenOk && k.localName !== 'slot' && (kst.display === 'none' || ariaHidden(k) || kst.visibility !== 'visible')) continue;
        if (k.localName === 'img' && k.getAttribute('alt') === '') continue; // presentational: no text, no space
        sub.src = 'contents';
        const t = textAlt(k, sub);
        const src = sub.src;
        if (k.localName !== 'slot' && ownBox(k, kst)) out += ' ' + t + ' ';
        else out += (prevSrc && src !== prevSrc ? ' ' : '') + t;
        prevSrc = src;
      }
      out += pseudo(el, '::after');
      return out;
    }

    // labelsText is the text of el's <label>s. Inside another element's
    // name (recursion) a control is not named by its labels: a label in
    // that element gives its text where it stands, once (Chrome 156:
    // <div role=option><input type=checkbox id=c><label for=c>First</label>
    // is "First", not "First First").
    function labelsText(el, ctx) {
      if (ctx.recursion) return '';
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

    // name is el's accessible name as Chrome computes it, white space
    // normalised ("" for a role that takes no name is the caller's call:
    // see NO_NAME). shown: the caller has checked that el is neither
    // aria-hidden nor display:none (a walk that skips those), so its style
    // is not read again.
    function name(el, shown) {
      return norm(textAlt(el, { visited: null, shown: !!shown }));
    }

    // rowName is a row's name as Playwright computes it: from its content
    // (Playwright names every row so; Chrome only a row of a grid or a
    // treegrid, and gives a table's rows none). The resolver matches
    // role=row[name=…] against it when Chrome's name is empty, and an
    // interactive-only snapshot names its rows with it.
    function rowName(el) {
      return norm(fromContent(el, { visited: new Set([el]) }));
    }

    // --- the superset side: strings a name could be made from ------------

    // deepText is el's text through open shadow roots; with alts, a
    // descendant's aria-label / alt / value / title stands for its content
    // (the way name-from-content reads it); with LABELLED, first its
    // aria-labelledby's text.
    function deepText(el, alts) {
      if (!alts && !rootsOf().length) return el.textContent || '';
      let out = '';
      const walk = (n) => {
        for (let c = n.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3) { out += c.nodeValue; continue; }
          if (c.nodeType !== 1) continue;
          if (alts) {
            const a = alts === LABELLED && labelledbyOf(c) || c.getAttribute('aria-label') || c.getAttribute('alt') ||
              (c.localName === 'input' ? inputValue(c) : null) ||
              c.getAttribute('title');
            if (a) { out += ' ' + a + ' '; continue; }
          }
          walk(c);
        }
        if (n.shadowRoot) walk(n.shadowRoot);
      };
      walk(el);
      return out;
    }

    // LABELLED: deepText's alts that also let a descendant with
    // aria-labelledby stand by its labels' text (a row named by its content,
    // whose field a label elsewhere names).
    const LABELLED = 2;

    // labelledbyOf is the text of the elements c's aria-labelledby names,
    // '' without one.
    function labelledbyOf(c) {
      const lb = c.getAttribute('aria-labelledby');
      if (!lb) return '';
      return lb.trim().split(/\s+/).map((id) => { const r = byId(c, id); return r ? r.textContent : ''; }).join(' ');
    }

    // nameSources lists strings Chrome's accessible name of el could be
    // made from, or contain; the likeliest first. A superset: one of them
    // contains the name (ignoring white space), whatever the name is.
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
        yield deepText(el, LABELLED);
      }
      if (hasPseudo()) {
        // Generated content next to the text: glued to it when inline (a
        // ::before is inline by default), apart when a block.
        const before = pseudoContent(el, '::before');
        const after = pseudoContent(el, '::after');
        yield before + text + after;
        yield before + ' ' + text + ' ' + after;
      }
    }

    return { role, name, rowName, value, hasName, pseudo, hasPseudo, nameSources, shadowRoots: rootsOf };
  }

  return Object.freeze({
    // text
    norm, normWS, showsNoText, SKIP,
    // the flat tree
    parentComposed, flatChildren, openShadowRoots, byId,
    // style, hidden, visible
    style, ariaHidden, isHidden, hiddenForAria, isBlock, visible,
    // generated content
    pseudoContent, hasPseudoRules,
    // roles, names, states
    ARIA_ROLES, NO_NAME, FROM_CONTENT, canonRole, explicitRole, inputRole, inputRoles, roleTest,
    focusable, hasGlobalAria, states, view, inputValue, editorOf, editorText,
  });
})()
