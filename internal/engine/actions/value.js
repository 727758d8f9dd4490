// value returns what an editable element holds: an input's or textarea's
// value, or the text of a contenteditable element (a label stands for its
// control). A password's value never leaves the page: it is bullets, as
// wherever egohost shows one (aria.js bullets: at most 8), so no action's
// result, trace or transcript holds it.
(node) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (el && el.localName === "label" && el.control) el = el.control;
  if (!el) return null;
  if (el.localName === "input" && el.type === "password") return "\u2022".repeat(Math.min(el.value.length, 8));
  if ("value" in el && (el.localName === "input" || el.localName === "textarea" || el.localName === "select")) return el.value;
  if (el.isContentEditable) return el.innerText;
  return null;
}
