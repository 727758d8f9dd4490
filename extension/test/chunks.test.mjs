import assert from "node:assert/strict";
import { test } from "node:test";
import { ChunkAssembler, ChunkError, decodeBase64, isChunk } from "../chunks.js";

// chunkFrames splits a message's UTF-8 bytes into pieces of pieceBytes, as the service does.
function chunkFrames(message, pieceBytes, chunk = "c1") {
  const bytes = Buffer.from(JSON.stringify(message), "utf8");
  const count = Math.ceil(bytes.length / pieceBytes);
  const frames = [];
  for (let i = 0; i < count; i++) {
    frames.push({ chunk, index: i, count, data: bytes.subarray(i * pieceBytes, (i + 1) * pieceBytes).toString("base64") });
  }
  return frames;
}

function feedAll(assembler, frames) {
  const out = [];
  for (const f of frames) {
    const got = assembler.feed(f);
    if (got !== undefined) out.push(got);
  }
  return out;
}

test("one chunk is a whole message", () => {
  const msg = { id: 1, op: "echo", data: "hi" };
  const frames = chunkFrames(msg, 1 << 20);
  assert.equal(frames.length, 1);
  assert.deepEqual(feedAll(new ChunkAssembler(), frames), [msg]);
});

test("many chunks reassemble in order, and only the last returns the message", () => {
  const msg = { id: 2, op: "echo", data: "x".repeat(10_000) };
  const frames = chunkFrames(msg, 999);
  assert.ok(frames.length > 10);
  const a = new ChunkAssembler();
  for (const f of frames.slice(0, -1)) {
    assert.equal(a.feed(f), undefined);
    assert.equal(a.pending, true);
  }
  assert.deepEqual(a.feed(frames.at(-1)), msg);
  assert.equal(a.pending, false);
});

test("multibyte UTF-8 split across chunk boundaries comes out whole", () => {
  // 2-, 3- and 4-byte characters; piece sizes that cut through them at every offset.
  const data = "é€😀ü中𝄞".repeat(50);
  const msg = { id: 3, op: "echo", data };
  for (const piece of [1, 2, 3, 5, 7, 13]) {
    const got = feedAll(new ChunkAssembler(), chunkFrames(msg, piece));
    assert.deepEqual(got, [msg], `piece size ${piece}`);
  }
});

test("consecutive chunked messages reuse one assembler", () => {
  const a = new ChunkAssembler();
  const m1 = { id: 1, op: "echo", data: "first ✓" };
  const m2 = { id: 2, op: "echo", data: "second ✓" };
  assert.deepEqual(feedAll(a, [...chunkFrames(m1, 4, "a"), ...chunkFrames(m2, 5, "b")]), [m1, m2]);
});

function assertChunkError(fn, pattern) {
  assert.throws(fn, (err) => err instanceof ChunkError && pattern.test(err.message), `want ChunkError matching ${pattern}`);
}

test("out-of-order chunk is an error and drops the partial message", () => {
  const frames = chunkFrames({ id: 4, op: "echo", data: "abcdefghij" }, 5);
  const a = new ChunkAssembler();
  a.feed(frames[0]);
  assertChunkError(() => a.feed(frames[2]), /got index 2, expected 1 \(out of order\)/);
  assert.equal(a.pending, false);
  // The rest of the broken message is dropped quietly: one error per broken message.
  assert.equal(a.feed(frames[1]), undefined);
  assert.equal(a.feed(frames[3]), undefined);
  // The next message assembles normally.
  const next = { id: 5, op: "ping" };
  assert.deepEqual(feedAll(a, chunkFrames(next, 3, "c2")), [next]);
});

test("a stray chunk of an unknown message is an error", () => {
  const frames = chunkFrames({ id: 5, op: "echo" }, 4, "stray");
  const a = new ChunkAssembler();
  assertChunkError(() => a.feed(frames[1]), /no message in progress/);
  assert.equal(a.feed(frames[2]), undefined, "its siblings add no second error");
});

test("a count that changes mid-message is an error", () => {
  const frames = chunkFrames({ id: 6, op: "echo", data: "abcdefgh" }, 4);
  const a = new ChunkAssembler();
  a.feed(frames[0]);
  assertChunkError(() => a.feed({ ...frames[1], count: frames[1].count + 1 }), /count changed/);
});

test("a chunk of another message mid-message is an error", () => {
  const frames = chunkFrames({ id: 7, op: "echo", data: "abcdefgh" }, 4);
  const a = new ChunkAssembler();
  a.feed(frames[0]);
  assertChunkError(() => a.feed({ ...frames[1], chunk: "other" }), /must not interleave/);
});

test("malformed chunk frames are errors", () => {
  const cases = [
    [{ index: 0, count: 1, data: "" }, /without a string `chunk` id/],
    [{ chunk: "c", index: 0, count: 0, data: "" }, /count must be a positive integer/],
    [{ chunk: "c", index: 1, count: 1, data: "" }, /outside 0..0/],
    [{ chunk: "c", index: 0, count: 1, data: 5 }, /data must be a base64 string/],
    [{ chunk: "c", index: 0, count: 1, data: "!!!not base64" }, /not valid base64/],
    [{ chunk: "c", index: 0, count: 1, data: Buffer.from([0xff, 0xfe]).toString("base64") }, /not valid UTF-8/],
    [{ chunk: "c", index: 0, count: 1, data: Buffer.from("{nope").toString("base64") }, /not valid JSON/],
  ];
  for (const [frame, pattern] of cases) assertChunkError(() => new ChunkAssembler().feed(frame), pattern);
});

test("a broken sequence reports the request id read from its first chunk", () => {
  const frames = chunkFrames({ id: 42, op: "echo", data: "y".repeat(100) }, 16);
  const a = new ChunkAssembler();
  a.feed(frames[0]);
  assert.throws(() => a.feed(frames[2]), (err) => err.id === 42);
});

test("isChunk tells chunk frames from messages", () => {
  assert.equal(isChunk({ chunk: "c", index: 0, count: 1, data: "" }), true);
  assert.equal(isChunk({ id: 1, op: "ping" }), false);
  assert.equal(isChunk(null), false);
  assert.equal(isChunk([]), false);
});

test("decodeBase64 matches Buffer", () => {
  const bytes = Buffer.from([0, 1, 2, 250, 255, 128]);
  assert.deepEqual(Buffer.from(decodeBase64(bytes.toString("base64"))), bytes);
});
