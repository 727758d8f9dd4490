// focus focuses el and says whether the focus landed on it (or inside
// it): {focused, focusable, active}.
(node) => {
  let el = node;
  if (el.nodeType !== 1) el = el.parentElement;
  if (!el || !el.isConnected) return { focused: false, focusable: false, active: "" };
  el.focus({ preventScroll: false });
  let active = el.ownerDocument.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  let focused = false;
  for (let n = active; n; n = n.parentNode || n.host) if (n === el) focused = true;
  const focusable =
    el.isContentEditable || el.tabIndex >= 0 || ["input", "select", "textarea", "button", "a", "iframe"].includes(el.localName);
  return { focused, focusable, active: active ? active.localName : "" };
}
