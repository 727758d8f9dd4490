// Downloads through chrome.downloads (chrome.debugger has no Browser domain): the start of every
// download and its changes of state go to the service as {event: "download", download: Download}.

/**
 * toDownload converts a chrome.downloads.DownloadItem to the wire's Download:
 * {id, url, finalUrl?, filename, mime?, state, bytes, totalBytes, error?}. state is in_progress,
 * interrupted or complete; filename is the absolute path once Chrome has chosen it.
 */
export function toDownload(item) {
  const out = {
    id: item.id,
    url: item.url ?? "",
    filename: item.filename ?? "",
    state: item.state ?? "in_progress",
    bytes: item.bytesReceived ?? 0,
    totalBytes: item.totalBytes ?? 0,
  };
  if (item.finalUrl && item.finalUrl !== item.url) out.finalUrl = item.finalUrl;
  if (item.mime) out.mime = item.mime;
  if (item.error) out.error = item.error;
  return out;
}

// The changes worth a frame: progress of bytes is not sent (it would flood the pipe).
const WATCHED = ["state", "filename", "error", "finalUrl", "mime"];

/**
 * installDownloadEvents forwards chrome.downloads.onCreated and onChanged to the service. A
 * change carries only what changed, so the whole item is read back with downloads.search and
 * every frame is complete; when that fails, the frame says what the change said.
 */
export function installDownloadEvents(downloads, emit) {
  downloads.onCreated.addListener((item) => emit({ event: "download", download: toDownload(item) }));
  downloads.onChanged.addListener((delta) => {
    if (!WATCHED.some((f) => f in delta)) return;
    const fromDelta = () => {
      const item = { id: delta.id };
      for (const f of WATCHED) if (delta[f]) item[f] = delta[f].current;
      return toDownload(item);
    };
    Promise.resolve()
      .then(() => downloads.search({ id: delta.id }))
      .then(
        (items) => emit({ event: "download", download: items?.[0] ? toDownload(items[0]) : fromDelta() }),
        () => emit({ event: "download", download: fromDelta() }),
      );
  });
}

/**
 * downloadOps are the ops on downloads: discard cancels a download the person refused, deletes
 * its file if it finished (or the partial one Chrome removes on cancel), and erases it from the
 * browser's list: {"discarded": true}. Each step's failure (already cancelled, no file) is fine.
 */
export function downloadOps(downloads) {
  return {
    discard: async (id) => {
      await Promise.resolve().then(() => downloads.cancel(id)).catch(() => {});
      const items = await Promise.resolve().then(() => downloads.search({ id })).catch(() => []);
      if (items?.[0]?.state === "complete" && items[0].exists !== false) {
        await Promise.resolve().then(() => downloads.removeFile(id)).catch(() => {});
      }
      await Promise.resolve().then(() => downloads.erase({ id })).catch(() => {});
      return { discarded: true };
    },
  };
}
