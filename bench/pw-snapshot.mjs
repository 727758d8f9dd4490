// pw-snapshot.mjs times Playwright's aria snapshot, page.locator('body').ariaSnapshot(),
// on pages of a browser that is already running, so that egohost's snapshot
// benchmark and Playwright's run on the same browser in the same run.
//
//   node pw-snapshot.mjs --endpoint ws://127.0.0.1:PORT/devtools/browser/ID \
//        [--runs 5] URL...
//
// It never launches or downloads a browser: it attaches with connectOverCDP.
// It prints one JSON object per URL on stdout:
//   {"url": "...", "runs": 5, "medianMs": 123.4, "minMs": 120.1, "chars": 45678}
// (chars counts UTF-16 code units of the snapshot text, as String.length does.)
import { run, timed, withContext } from './measure.mjs';

function parseArgs(argv) {
  const opts = { endpoint: '', runs: 5, urls: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--endpoint') opts.endpoint = argv[++i];
    else if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}`);
    else opts.urls.push(a);
  }
  if (!opts.endpoint) throw new Error('--endpoint is required (the browser\'s DevTools WebSocket URL)');
  if (!(opts.runs >= 1)) throw new Error('--runs must be at least 1');
  if (opts.urls.length === 0) throw new Error('no URL given');
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  await withContext(opts.endpoint, async (context) => {
    for (const url of opts.urls) {
      const page = await context.newPage();
      try {
        await page.goto(url, { waitUntil: 'load' });
        await page.locator('body').ariaSnapshot({ timeout: 600000 }); // warm-up, as the Go side warms up too
        let chars = 0;
        const t = await timed(opts.runs, async () => {
          chars = (await page.locator('body').ariaSnapshot({ timeout: 600000 })).length;
        });
        console.log(JSON.stringify({ url, ...t, chars }));
      } finally {
        await page.close();
      }
    }
  });
}

run('pw-snapshot', main);
