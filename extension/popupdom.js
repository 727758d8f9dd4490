// What the popup's panels share: a call of the service over the popup channel (PROTOCOL.md §2.6,
// through the worker) and a small element builder. Plain DOM, no state.

/** call asks the service through the worker; it resolves to {result} or {error}, never rejects. */
export async function call(method, params) {
  try {
    return (await chrome.runtime.sendMessage({ type: "service.call", method, params })) ?? { error: { message: "no answer" } };
  } catch (err) {
    return { error: { message: err.message } };
  }
}

/** el makes an element of tag with an optional class and text. */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
