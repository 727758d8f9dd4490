// fill prepares an element for typed text, as Playwright does: el is the
// element (a label stands for its control). Inputs whose value is not
// typed (date, time, color, range…) get the value set directly with input
// and change events. Others are focused with their text selected (or the
// caret at the end when appending): the caller then inserts the text.
// A code editor's key input (CodeMirror 5, Ace: ns.editorOf) is
// focused; the caller gives the editor the keys that select all its text
// (editor says which editor). o = {value, append}. Returns {done, value} |
// {needsInput, prefix, editor?, moved?} | {error}; moved names the element
// the page moved the focus to when el took it.
(node, ns, o) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (el && el.localName === "label" && el.control) el = el.control;
  if (!el || !el.isConnected) return { error: "element is not attached" };
  const direct = ["color", "date", "time", "datetime-local", "month", "range", "week"];
  const never = ["checkbox", "radio", "file", "button", "submit", "reset", "image", "hidden"];
  if (el.localName === "input") {
    const type = (el.type || "text").toLowerCase();
    if (never.includes(type)) return { error: 'an <input type="' + type + '"> cannot be filled' };
    if (direct.includes(type)) {
      const value = o.append ? el.value + o.value : o.value.trim();
      el.focus();
      el.value = value;
      if (el.value !== value) return { error: "malformed value " + JSON.stringify(value) + ' for <input type="' + type + '">' };
      el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return { done: true, value: el.value };
    }
    if (type === "number" && o.value.trim() !== "" && isNaN(Number(o.value))) {
      return { error: "cannot type text into an <input type=number>: " + JSON.stringify(o.value) };
    }
  } else if (el.localName !== "textarea" && !el.isContentEditable) {
    return { error: "element is not an <input>, <textarea> or [contenteditable] element" };
  } else if (el.classList.contains("xterm-helper-textarea")) {
    // A terminal (xterm.js) reads keys from this hidden textarea: it has no
    // value to replace, and the versions most pages ship drop inserted text.
    return { error: "the element is a terminal's key input (xterm.js), which has no value to replace and takes keys, not inserted text: type the text key by key (the type verb; slowly in MCP's browser_type), then press Enter" };
  }
  el.focus();
  // A page may move the focus on: Roundcube's hidden To text area hands
  // it to the recipient widget's input. The text goes where the focus is,
  // as a person's typing would (and Playwright's insertText): the caller
  // says so (moved), since the element's own value stays as it was.
  let active = el.ownerDocument.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  const moved = active && active !== el && !el.contains(active) ? brief(active) : undefined;
  const input = (prefix, editor) => ({ needsInput: true, prefix, editor, moved });
  const ed = ns.editorOf(el);
  if (ed) {
    // A code editor's key input: the editor's own keys select its text
    // (or go to its end); the caller presses them, then inserts the text.
    return input("", ed.kind);
  }
  if (el.localName === "input" || el.localName === "textarea") {
    if (!o.append) {
      el.select();
      return input("");
    }
    try {
      el.setSelectionRange(el.value.length, el.value.length);
      return input("");
    } catch {
      // email and number inputs have no caret API: replace everything.
      el.select();
      return input(el.value);
    }
  }
  const range = el.ownerDocument.createRange();
  range.selectNodeContents(el);
  if (o.append) range.collapse(false);
  const sel = el.ownerDocument.defaultView.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  return input("");

  // brief names an element by its tag and the attributes that tell it
  // apart: <input role="combobox" type="text">.
  function brief(e) {
    let s = "<" + e.localName;
    for (const a of ["id", "name", "role", "type"]) {
      const v = e.getAttribute(a);
      if (v) s += " " + a + '="' + v.slice(0, 40) + '"';
    }
    return s + ">";
  }
}
