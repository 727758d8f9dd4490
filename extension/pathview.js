// Paths, URLs and tokens as the popup shows them: a line may break after a separator ("/", "\",
// "?", "&", "=", "#"), never inside a name (issue 26: no raw path breaks mid word). CSS
// overflow-wrap: break-word breaks a name only when it alone is wider than the line.

const AFTER = /(?<=[/\\?&=#])/;

/** pathParts splits text after each separator: the pieces a line may break between. */
export function pathParts(text) {
  return String(text ?? "")
    .split(AFTER)
    .filter((p) => p !== "");
}

/**
 * pathNodes is text as DOM nodes with a <wbr> after each separator, for an element with the
 * class "path" (each piece is one text node: the e2e test checks none spans two lines).
 */
export function pathNodes(doc, text) {
  const out = [];
  for (const part of pathParts(text)) {
    if (out.length) out.push(doc.createElement("wbr"));
    out.push(doc.createTextNode(part));
  }
  return out;
}

/** baseName is the last part of a path ("" stays ""). */
export function baseName(path) {
  const parts = String(path ?? "").split(/[/\\]/);
  return parts[parts.length - 1] || String(path ?? "");
}
