// The "This tab" panel's snapshot: the service's snapshot text split into lines the popup shows,
// each with its ref (the service computes everything; this only reads its text).

// An element line is its header, "role", then maybe a quoted name and [attributes], then " @N"
// (the ref ends the header, before any ": value": internal/engine/snapshot/render.go). The name is skipped as a
// quoted string, so an "@2" inside it is not a ref; text lines that read like refs come quoted.
const HEADER = /^((?:- )?[^\s"[]+(?: "(?:[^"\\]|\\.)*")?(?: \[.*?\])?) @(\d+)(?=$|: )/;

/**
 * snapshotLines splits a snapshot's text into {depth, text, ref} lines: depth is the indent level
 * (two spaces each, a leading "- " counts as part of the text), ref is "@N" or "" when the line
 * names no element. The ref is taken out of the text: the popup shows it once, as its button.
 */
export function snapshotLines(text) {
  const out = [];
  for (const raw of String(text ?? "").split("\n")) {
    if (raw.trim() === "") continue;
    const indent = raw.length - raw.trimStart().length;
    const line = raw.trim();
    const m = HEADER.exec(line);
    out.push({
      depth: Math.floor(indent / 2),
      text: m ? m[1] + line.slice(m[0].length) : line,
      ref: m ? `@${m[2]}` : "",
    });
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
