// pw-resolve.mjs resolves Playwright selectors to bounding boxes, with
// locator.boundingBox(), on a page of a browser that is already running, so
// that egohost's resolver and Playwright can be compared (same elements?) and
// timed on the same browser in the same run.
//
//   node pw-resolve.mjs --endpoint ws://127.0.0.1:PORT/devtools/browser/ID \
//        --url URL [--runs 5] [--timeout 2000] SELECTOR...
//
// SELECTOR is a Playwright selector, as page.locator() takes it: getByRole is
// internal:role=button[name="Save"i], getByText is internal:text="Save"i.
// It never launches or downloads a browser: it attaches with connectOverCDP,
// opens its own tab at URL, and closes it at the end. It prints one JSON
// object per selector on stdout:
//   {"selector": "...", "box": {"x":…,"y":…,"width":…,"height":…} | null,
//    "error": "...", "runs": 5, "medianMs": 1.2, "minMs": 1.1}
// With --runs 0 it only resolves once (no timing).
import { run, timed, withContext } from './measure.mjs';

function parseArgs(argv) {
  const opts = { endpoint: '', url: '', runs: 0, timeout: 2000, selectors: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--endpoint') opts.endpoint = argv[++i];
    else if (a === '--url') opts.url = argv[++i];
    else if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--timeout') opts.timeout = Number(argv[++i]);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}`);
    else opts.selectors.push(a);
  }
  if (!opts.endpoint) throw new Error('--endpoint is required (the browser\'s DevTools WebSocket URL)');
  if (!opts.url) throw new Error('--url is required');
  if (!(opts.runs >= 0)) throw new Error('--runs must be 0 or more');
  if (opts.selectors.length === 0) throw new Error('no selector given');
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  await withContext(opts.endpoint, async (context) => {
    const page = await context.newPage();
    try {
      await page.goto(opts.url, { waitUntil: 'load' });
      for (const selector of opts.selectors) {
        const out = { selector, box: null };
        const loc = page.locator(selector);
        try {
          out.box = await loc.boundingBox({ timeout: opts.timeout }); // also the warm-up
          if (opts.runs > 0) {
            Object.assign(out, await timed(opts.runs, () => loc.boundingBox({ timeout: opts.timeout }), 2));
          }
        } catch (e) {
          out.error = String(e && e.message || e).split('\n')[0];
        }
        console.log(JSON.stringify(out));
      }
    } finally {
      await page.close();
    }
  });
}

run('pw-resolve', main);
