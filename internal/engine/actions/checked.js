// checked reads the checked state of a checkbox, radio button or switch
// (el; a label stands for its control): {state, radio} | {error}.
(node) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (el && el.localName === "label" && el.control) el = el.control;
  if (!el) return { error: "element is not attached" };
  if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) {
    return { state: el.checked, radio: el.type === "radio" };
  }
  const role = el.getAttribute("role");
  if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role)) {
    return { state: el.getAttribute("aria-checked") === "true", radio: role === "radio" || role === "menuitemradio" };
  }
  return { error: "element is not a checkbox, a radio button or a switch" };
}
