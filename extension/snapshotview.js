// The "This tab" panel's snapshot: the service's snapshot text split into lines the popup shows,
// each with its ref (the service computes everything; this only reads its text).

const REF = /(?:^|\s)@(\d+)(?=$|[\s:])/;

/**
 * snapshotLines splits a snapshot's text into {depth, text, ref} lines: depth is the indent level
 * (two spaces each, a leading "- " counts as part of the text), ref is "@N" or "" when the line
 * names no element.
 */
export function snapshotLines(text) {
  const out = [];
  for (const raw of String(text ?? "").split("\n")) {
    if (raw.trim() === "") continue;
    const indent = raw.length - raw.trimStart().length;
    const m = REF.exec(raw);
    out.push({ depth: Math.floor(indent / 2), text: raw.trim(), ref: m ? `@${m[1]}` : "" });
  }
  return out;
}

/** snapshotSummary is the one line over the snapshot: how many elements and refs, and how long it took. */
export function snapshotSummary(result) {
  const st = result?.stats ?? {};
  const parts = [];
  if (typeof st.refs === "number") parts.push(`${st.refs} ref${st.refs === 1 ? "" : "s"}`);
  if (typeof st.elements === "number") parts.push(`${st.elements} elements`);
  if (typeof st.tookMs === "number") parts.push(`${Math.round(st.tookMs)} ms`);
  if (result?.truncated) parts.push(`cut at ${result.truncated.shownLines} of ${result.truncated.totalLines} lines`);
  return parts.join(" · ");
}
