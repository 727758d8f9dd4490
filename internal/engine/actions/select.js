// select selects the options of a <select> (el; a label stands for its
// control) that match o = {values, labels, indexes}: a value matches an
// option's value or its label, a label its label, an index its position.
// Then it fires input and change, as a person's choice does. An empty
// request deselects all. Returns {selected: [values], labels: [their labels]} | {missing: [what]} |
// {error} | {widget: {role, editable, expanded, list, item}} for an element
// that is no <select> but a widget that acts as one (a combobox, a listbox,
// a button that opens a list): Go then selects with clicks, as a person
// does; editable: one types in it (an autocomplete), list is the id of the
// list it controls, item the role of its entries.
(node, ns, o) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (el && el.localName === "label" && el.control) el = el.control;
  if (el && el.localName !== "select") {
    const role = ns.view(el.ownerDocument).role(el);
    const popup = (el.getAttribute("aria-haspopup") || "").trim().toLowerCase();
    if (role === "combobox" || role === "listbox" || (role === "button" && ["true", "listbox", "menu"].includes(popup))) {
      const ids = (el.getAttribute("aria-controls") || el.getAttribute("aria-owns") || "").trim().split(/\s+/);
      const editable = el.localName === "input" || el.localName === "textarea" || el.isContentEditable;
      return { widget: { role, editable, expanded: el.getAttribute("aria-expanded") === "true", list: ids[0] || "", item: popup === "menu" ? "menuitem" : "option" } };
    }
  }
  if (!el || el.localName !== "select") {
    return { error: "element is not a <select> element, a combobox or a listbox; for a list the page draws itself, click the element, then the entry (click 'text=\"…\"')" };
  }
  const options = [...el.options];
  const chosen = [];
  const missing = [];
  const pick = (what, test) => {
    const opt = options.find(test);
    if (!opt) missing.push(what);
    else if (!chosen.includes(opt)) chosen.push(opt);
  };
  for (const v of o.values || []) pick(JSON.stringify(v), (x) => x.value === v || x.label === v || x.text.trim() === v);
  for (const l of o.labels || []) pick("label " + JSON.stringify(l), (x) => x.label === l || x.text.trim() === l);
  for (const i of o.indexes || []) pick("index " + i, (x) => x.index === i);
  if (missing.length) return { missing, have: options.slice(0, 20).map((x) => x.value + (x.label !== x.value ? " (" + x.label + ")" : "")) };
  if (chosen.length > 1 && !el.multiple) return { error: "the <select> takes one option, " + chosen.length + " were given" };
  const disabled = chosen.find((x) => x.disabled);
  if (disabled) return { disabledOption: disabled.value };
  for (const x of options) x.selected = chosen.includes(x);
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  const now = [...el.selectedOptions];
  return { selected: now.map((x) => x.value), labels: now.map((x) => x.label) };
}
