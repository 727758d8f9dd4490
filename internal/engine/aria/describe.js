// describe names a node for people in one line, as an action's messages
// quote it: an element's tag, id, first three classes, a few identifying
// attributes and the start of its text (`<button id="pay" type="submit">
// Pay now</button>`); another node by its name. It needs nothing of the
// page module, so it runs in any world (the page's own too: a press
// describes the focused element there): the scripts that quote elements
// get it as a variable in their scope (WithDescribe in aria.go).
(n) => {
  if (!n || n.nodeType !== 1) return String(n && n.nodeName ? n.nodeName.toLowerCase() : n);
  // The page's own words (an id, a class, an attribute, the text) come on
  // one line, without control characters, and short: a page cannot make an
  // action's message long, give it lines of its own or reach the terminal
  // that prints it.
  const line = (v) => v.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  let s = '<' + n.localName;
  if (n.id) s += ' id="' + line(n.id).slice(0, 40) + '"';
  const cls = typeof n.className === 'string' ? n.className.trim().split(/\s+/).filter(Boolean).slice(0, 3).map((c) => line(c).slice(0, 40)) : [];
  if (cls.length) s += ' class="' + cls.join(' ') + '"';
  // What shows no text (an icon font's glyphs, zero-width spaces: aria.js
  // NO_TEXT, copied: this runs without the module; TestOneNoTextRule keeps
  // the copies one) is left out; an element with no text is known by its
  // tooltip.
  const text = line((n.innerText || n.textContent || '').replace(/[\u200b\ufeff\ue000-\uf8ff]|[\udb80-\udbff][\udc00-\udfff]/g, ''));
  for (const a of ['name', 'role', 'type', 'aria-label', 'data-testid', 'title']) {
    const v = n.getAttribute(a);
    if (v && (a !== 'title' || !text && !n.hasAttribute('aria-label'))) s += ' ' + a + '="' + line(v).slice(0, 40) + '"';
  }
  s += '>';
  if (text && n.children.length < 20) s += text.length > 40 ? text.slice(0, 39) + '…' : text;
  const empty = /^(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)$/.test(n.localName);
  return empty ? s : s + '</' + n.localName + '>';
}
