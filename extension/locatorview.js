// The locator tester and the picker's result, as the popup shows them. Pure functions and a
// debouncer with injectable timers, so they run under node --test.

/**
 * Debouncer runs the latest of quick successive calls once they pause for `ms`. Each run gets a
 * sequence number; isLatest(seq) tells whether a slow answer is still the one to show.
 */
export class Debouncer {
  #timer = null;
  #seq = 0;

  constructor(fn, ms, timers = { setTimeout: (f, t) => setTimeout(f, t), clearTimeout: (t) => clearTimeout(t) }) {
    Object.assign(this, { fn, ms, timers });
  }

  /** call schedules fn(...args, seq) after the pause, replacing a call still waiting. */
  call(...args) {
    if (this.#timer !== null) this.timers.clearTimeout(this.#timer);
    const seq = ++this.#seq;
    this.#timer = this.timers.setTimeout(() => {
      this.#timer = null;
      this.fn(...args, seq);
    }, this.ms);
    return seq;
  }

  /** isLatest reports whether seq is the newest call made. */
  isLatest(seq) {
    return seq === this.#seq;
  }
}

/**
 * testerView turns popup.highlight's answer for one locator into what the tester shows:
 *   {kind: "empty"}                                    nothing typed
 *   {kind: "count", count, text, matches}              "3 matches" and who they are (matchList)
 *   {kind: "syntax", text, before, at, after}          the input split around the error's offset
 *   {kind: "error", text}                              any other failure, in words
 */
export function testerView(input, answer, explain) {
  if (String(input ?? "").trim() === "") return { kind: "empty" };
  if (answer?.error) {
    const e = answer.error;
    if (e.name === "syntax_error" || e.code === 1104) {
      const offset = typeof e.data?.offset === "number" ? e.data.offset : -1;
      return { kind: "syntax", text: syntaxMessage(e.message), ...splitAt(input, offset) };
    }
    return { kind: "error", text: explain(e) };
  }
  const matches = answer?.result?.matches ?? [];
  const count = answer?.result?.count ?? matches.length;
  const text = count === 0 ? "No element matches." : count === 1 ? "1 match: unique." : `${count} matches: an action needs one (add >> nth=N or narrow it).`;
  return { kind: "count", count, text, matches: matchList(input, matches) };
}

/** describeMatch is one matched element in words: role "name" (no box when it has none). */
export function describeMatch(m) {
  const name = m?.name ? ` "${m.name}"` : "";
  return `${m?.role || "element"}${name}${m?.box ? "" : " (not rendered)"}`;
}

/**
 * matchList is the tester's list of matches, each told apart from the others: {label, text,
 * where, nth}. When there are several, label is the number its box in the page carries ("2/3"),
 * nth the locator that picks it alone, and where the position of its box ("at 120, 48", its
 * centre in the viewport) for each match whose words another match shares.
 */
export function matchList(input, matches) {
  const texts = matches.map((m) => describeMatch(m));
  const n = matches.length;
  const base = String(input ?? "").trim();
  return matches.map((m, i) => {
    const shared = texts.some((t, j) => j !== i && t === texts[i]);
    const box = m?.box;
    return {
      label: n > 1 ? `${i + 1}/${n}` : "",
      text: texts[i],
      where: shared && box ? `at ${Math.round(box.x)}, ${Math.round(box.y)}` : "",
      nth: n > 1 ? `${base} >> nth=${i}` : "",
    };
  });
}

// splitAt splits the input at a byte offset (the service counts UTF-8 bytes) into the part before,
// the character at it (a space past the end) and the rest. A negative offset marks nothing.
export function splitAt(input, offset) {
  const s = String(input);
  if (offset < 0) return { before: s, at: "", after: "" };
  const bytes = new TextEncoder().encode(s);
  const before = new TextDecoder().decode(bytes.slice(0, Math.min(offset, bytes.length)));
  const rest = s.slice(before.length);
  if (rest === "") return { before, at: " ", after: "" };
  const first = String.fromCodePoint(rest.codePointAt(0));
  return { before, at: first, after: rest.slice(first.length) };
}

// syntaxMessage keeps the reason of a syntax error ("unclosed ["), without the operation, the
// input the popup already shows, the offset it marks and the code.
export function syntaxMessage(message) {
  let m = String(message ?? "");
  const quoted = m.lastIndexOf('": ');
  if (quoted >= 0) m = m.slice(quoted + 3);
  return m.replace(/ \(syntax_error \d+\)$/, "").replace(/ at offset -?\d+$/, "");
}

/**
 * pickView turns a pick (popup.pick's result or popup.lastPick's pick) into what the popup shows:
 * the locator and ref to copy, and the candidates tried with their counts.
 */
export function pickView(pick, now = Date.now()) {
  if (!pick) return null;
  if (pick.cancelled) return { cancelled: true };
  const ago = Math.max(0, Math.round((now - (pick.at ?? now)) / 1000));
  return {
    locator: pick.locator || "",
    ref: pick.ref || "",
    element: describeMatch({ role: pick.role, name: pick.name, box: pick.box ?? true }),
    where: `tab ${pick.tab}${pick.url ? ` · ${pick.url}` : ""}${ago > 5 ? ` · ${ago} s ago` : ""}`,
    candidates: (pick.candidates ?? []).map((c) => ({
      locator: c.locator,
      note: c.unique ? "unique" : c.count === 0 ? "no match" : `${c.count} matches`,
      unique: Boolean(c.unique),
    })),
  };
}
