// value returns what an editable element holds: an input's or textarea's
// value, or the text of a contenteditable element (a label stands for its
// control).
(node) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (el && el.localName === "label" && el.control) el = el.control;
  if (!el) return null;
  if ("value" in el && (el.localName === "input" || el.localName === "textarea" || el.localName === "select")) return el.value;
  if (el.isContentEditable) return el.innerText;
  return null;
}
