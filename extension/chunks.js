// Reassembly of chunked service → extension messages (PROTOCOL.md §2.4).
//
// A message too big for one native-messaging frame arrives as frames
//   {"chunk": "c17", "index": 0, "count": 3, "data": "<base64 of a piece of the message's bytes>"}
// in order and never interleaved with another chunked message. Each piece is decoded on arrival
// and fed to a streaming UTF-8 decoder, so a character split across two pieces comes out whole.

/** ChunkError reports a broken chunk sequence. id is the request's id when it could be read. */
export class ChunkError extends Error {
  constructor(message, id) {
    super(message);
    this.name = "ChunkError";
    if (id !== undefined) this.id = id;
  }
}

/** isChunk reports whether a frame is a chunk frame rather than a whole message. */
export function isChunk(frame) {
  return frame !== null && typeof frame === "object" && !Array.isArray(frame) && "chunk" in frame;
}

/** decodeBase64 turns standard base64 into bytes; it throws on malformed input. */
export function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * ChunkAssembler rebuilds one chunked message at a time. feed() returns the parsed message when
 * the last chunk arrives, undefined before that, and throws ChunkError (dropping the partial
 * message) when the sequence is broken: a chunk out of order, a count or chunk id that changes
 * mid-message, bad base64, invalid UTF-8 or invalid JSON. The broken message's later frames are
 * then dropped without further errors.
 */
export class ChunkAssembler {
  #current = null; // {chunk, count, next, parts: string[], decoder, prefix}
  #broken = null; // id of the chunked message that failed; its remaining frames are dropped quietly

  /** pending reports whether a message is partly received. */
  get pending() {
    return this.#current !== null;
  }

  /** reset drops any partly received message (e.g. when the port closes). */
  reset() {
    this.#current = null;
    this.#broken = null;
  }

  feed(frame) {
    // After a failure, the rest of that message's frames say nothing new: drop them without
    // another error, so the first (telling) error is the one reported.
    if (this.#current === null && this.#broken !== null && frame?.chunk === this.#broken && frame?.index !== 0) return undefined;
    this.#broken = null;
    try {
      return this.#feed(frame);
    } catch (err) {
      const id = this.#current ? idFromPrefix(this.#current.prefix) : undefined;
      this.#broken = this.#current?.chunk ?? (typeof frame?.chunk === "string" ? frame.chunk : null);
      this.#current = null;
      if (err instanceof ChunkError) {
        if (id !== undefined && err.id === undefined) err.id = id;
        throw err;
      }
      throw new ChunkError(`chunk ${describe(frame)}: ${err.message}`, id);
    }
  }

  #feed(frame) {
    const { chunk, index, count, data } = frame ?? {};
    if (typeof chunk !== "string" || chunk === "") throw new ChunkError("chunk frame without a string `chunk` id");
    if (!Number.isInteger(count) || count < 1) throw new ChunkError(`chunk ${chunk}: count must be a positive integer, got ${JSON.stringify(count)}`);
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new ChunkError(`chunk ${chunk}: index ${JSON.stringify(index)} is outside 0..${count - 1}`);
    }
    if (typeof data !== "string") throw new ChunkError(`chunk ${chunk}: data must be a base64 string`);

    let cur = this.#current;
    if (cur === null) {
      if (index !== 0) throw new ChunkError(`chunk ${chunk}: got index ${index} with no message in progress (out of order: expected index 0)`);
      cur = this.#current = {
        chunk,
        count,
        next: 0,
        parts: [],
        decoder: new TextDecoder("utf-8", { fatal: true }),
        prefix: "",
      };
    } else {
      if (chunk !== cur.chunk) {
        throw new ChunkError(`chunk ${chunk} arrived while chunk ${cur.chunk} was at ${cur.next}/${cur.count} (chunks must not interleave)`);
      }
      if (count !== cur.count) throw new ChunkError(`chunk ${chunk}: count changed from ${cur.count} to ${count} at index ${index}`);
      if (index !== cur.next) throw new ChunkError(`chunk ${chunk}: got index ${index}, expected ${cur.next} (out of order)`);
    }

    let bytes;
    try {
      bytes = decodeBase64(data);
    } catch (err) {
      throw new ChunkError(`chunk ${chunk}: index ${index} is not valid base64 (${err.message})`);
    }
    const last = index === count - 1;
    let text;
    try {
      text = cur.decoder.decode(bytes, { stream: !last });
    } catch {
      throw new ChunkError(`chunk ${chunk}: index ${index} is not valid UTF-8`);
    }
    cur.parts.push(text);
    if (cur.prefix.length < 64) cur.prefix += text.slice(0, 64);
    cur.next++;
    if (!last) return undefined;

    const json = cur.parts.join("");
    let message;
    try {
      message = JSON.parse(json);
    } catch (err) {
      throw new ChunkError(`chunk ${chunk}: the reassembled ${count}-chunk message is not valid JSON (${err.message})`);
    }
    this.#current = null;
    return message;
  }
}

// idFromPrefix reads the request id from the start of a partly received message, so that a
// broken chunk sequence can still be answered with an error instead of leaving the sender waiting.
function idFromPrefix(prefix) {
  const m = /^\s*\{\s*"id"\s*:\s*(-?\d+)/.exec(prefix ?? "");
  return m ? Number(m[1]) : undefined;
}

function describe(frame) {
  return typeof frame?.chunk === "string" ? frame.chunk : "?";
}
