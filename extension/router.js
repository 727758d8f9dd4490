// Routing of frames arriving from the native host: chunks, relay and service events, requests.

import { ChunkAssembler, ChunkError, isChunk } from "./chunks.js";
import { Code } from "./errors.js";

/**
 * Router takes every frame from the host and sends it where it belongs:
 *   chunk frames     → reassembled, then routed as the message they carry
 *   {event: "relay"} → onRelay(msg)     (the relay's own state: connected / service_down)
 *   {event: "welcome"} → onWelcome(msg) (the service registered this browser link)
 *   other events     → onEvent(msg)
 *   anything else    → dispatcher.handle(msg), which answers it (bad_request if malformed)
 * A broken chunk sequence is reported to onProtocolError and, when the request's id could be
 * read from its first chunk, answered with bad_request so the service does not wait forever.
 */
export class Router {
  constructor({ dispatcher, onRelay = () => {}, onWelcome = () => {}, onEvent = () => {}, onProtocolError = () => {} }) {
    Object.assign(this, { dispatcher, onRelay, onWelcome, onEvent, onProtocolError });
    this.assembler = new ChunkAssembler();
  }

  /** reset forgets a partly received chunked message (call it when the port closes). */
  reset() {
    this.assembler.reset();
  }

  /** route handles one frame; the returned promise settles when a request's reply is sent. */
  route(frame) {
    if (isChunk(frame)) {
      let msg;
      try {
        msg = this.assembler.feed(frame);
      } catch (err) {
        if (!(err instanceof ChunkError)) throw err;
        this.onProtocolError(err.message);
        if (err.id !== undefined) this.dispatcher.replyError(err.id, Code.badRequest, err.message);
        return Promise.resolve();
      }
      if (msg === undefined) return Promise.resolve();
      if (isChunk(msg)) {
        this.onProtocolError("a chunked message must not itself be a chunk frame");
        return Promise.resolve();
      }
      return this.#message(msg);
    }
    return this.#message(frame);
  }

  #message(msg) {
    if (msg !== null && typeof msg === "object" && !Array.isArray(msg) && typeof msg.event === "string" && !("id" in msg)) {
      switch (msg.event) {
        case "relay":
          this.onRelay(msg);
          break;
        case "welcome":
          this.onWelcome(msg);
          break;
        default:
          this.onEvent(msg);
      }
      return Promise.resolve();
    }
    return this.dispatcher.handle(msg);
  }
}
