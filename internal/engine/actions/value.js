// value returns what an editable element holds: an input's value as
// egohost shows it (the page module's inputValue: a password's bullets, so
// no action's result, trace or transcript holds a password), a code
// editor's text for its key input (editorOf), a textarea's or select's
// value, or the text of a contenteditable element (a label stands for its
// control). ns is the page module.
(node, ns) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (el && el.localName === "label" && el.control) el = el.control;
  if (!el) return null;
  if (el.localName === "input") return ns.inputValue(el);
  const ed = ns.editorOf(el);
  if (ed) return ns.editorText(ed); // a code editor's key input holds nothing
  if ("value" in el && (el.localName === "textarea" || el.localName === "select")) return el.value;
  if (el.isContentEditable) return el.innerText;
  return null;
}
