import assert from "node:assert/strict";
import { test } from "node:test";
import { installDownloadEvents, toDownload } from "../downloads.js";
import { FakeEvent, collector, tick } from "./fakes.mjs";

/** FakeDownloads is chrome.downloads over an in-memory list. */
class FakeDownloads {
  onCreated = new FakeEvent();
  onChanged = new FakeEvent();
  items = new Map();
  searchImpl = async ({ id }) => (this.items.has(id) ? [{ ...this.items.get(id) }] : []);
  search(query) {
    return this.searchImpl(query);
  }
}

const ITEM = {
  id: 7,
  url: "http://127.0.0.1:8080/report.csv",
  finalUrl: "http://127.0.0.1:8080/report.csv",
  filename: "",
  mime: "text/csv",
  state: "in_progress",
  bytesReceived: 0,
  totalBytes: 12,
  error: undefined,
  danger: "safe",
};

test("toDownload gives the wire shape, without empty optional fields", () => {
  assert.deepEqual(toDownload(ITEM), {
    id: 7,
    url: "http://127.0.0.1:8080/report.csv",
    filename: "",
    state: "in_progress",
    bytes: 0,
    totalBytes: 12,
    mime: "text/csv",
  });
  const redirected = toDownload({ ...ITEM, finalUrl: "http://127.0.0.1:8080/final.csv", error: "NETWORK_FAILED", state: "interrupted" });
  assert.equal(redirected.finalUrl, "http://127.0.0.1:8080/final.csv");
  assert.equal(redirected.error, "NETWORK_FAILED");
  assert.deepEqual(toDownload({ id: 1 }), { id: 1, url: "", filename: "", state: "in_progress", bytes: 0, totalBytes: 0 });
});

test("a download's start and its end are forwarded, each as the whole item", async () => {
  const downloads = new FakeDownloads();
  const { events, emit } = collector();
  installDownloadEvents(downloads, emit);
  downloads.items.set(7, { ...ITEM });
  downloads.onCreated.fire({ ...ITEM });
  // Byte progress alone is not forwarded.
  downloads.items.get(7).bytesReceived = 6;
  downloads.onChanged.fire({ id: 7, bytesReceived: { previous: 0, current: 6 } });
  Object.assign(downloads.items.get(7), { filename: "/home/u/Downloads/report.csv", bytesReceived: 12, state: "complete" });
  downloads.onChanged.fire({ id: 7, filename: { current: "/home/u/Downloads/report.csv" } });
  downloads.onChanged.fire({ id: 7, state: { previous: "in_progress", current: "complete" } });
  await tick();
  assert.deepEqual(
    events.map((e) => [e.event, e.download.id, e.download.state, e.download.filename]),
    [
      ["download", 7, "in_progress", ""],
      ["download", 7, "complete", "/home/u/Downloads/report.csv"],
      ["download", 7, "complete", "/home/u/Downloads/report.csv"],
    ],
  );
  assert.equal(events[2].download.bytes, 12);
});

test("when the item cannot be read back, the change itself is forwarded", async () => {
  const downloads = new FakeDownloads();
  downloads.searchImpl = async () => {
    throw new Error("downloads.search failed");
  };
  const { events, emit } = collector();
  installDownloadEvents(downloads, emit);
  downloads.onChanged.fire({ id: 9, state: { previous: "in_progress", current: "interrupted" }, error: { current: "NETWORK_FAILED" } });
  await tick();
  assert.deepEqual(events, [
    { event: "download", download: { id: 9, url: "", filename: "", state: "interrupted", bytes: 0, totalBytes: 0, error: "NETWORK_FAILED" } },
  ]);
  // An item that is gone (erased) is forwarded from the change too.
  downloads.searchImpl = async () => [];
  downloads.onChanged.fire({ id: 10, state: { current: "complete" } });
  await tick();
  assert.equal(events[1].download.id, 10);
  assert.equal(events[1].download.state, "complete");
});
