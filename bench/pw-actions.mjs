// pw-actions.mjs times Playwright's click, fill, press and goto on a page of
// a browser that is already running, so that egohost's action benchmark and
// Playwright's run on the same browser and the same pages in the same run.
//
//   node pw-actions.mjs --endpoint ws://127.0.0.1:PORT/devtools/browser/ID \
//        [--runs 20] [--form | --clicks | --goto | --list LIST_URL] PAGE_URL OTHER_URL
//
// With --form it times fill and press on PAGE_URL only (one block of
// e2e.BenchmarkFillPressInterleaved).
// With --clicks it times click by role and by css on PAGE_URL, the
// 5,000-item list (one block of e2e.BenchmarkClickInterleaved).
// With --goto it times goto only, alternating between OTHER_URL and PAGE_URL
// (one block of e2e.BenchmarkGotoManyRequests).
// With --list it times click by role and by css and ariaSnapshot on
// LIST_URL (e2e.BenchmarkActionsList's 5,000-item page), then fill and
// press on PAGE_URL, and no goto.
// PAGE_URL has a button #b, a text input #name; goto alternates between
// OTHER_URL and PAGE_URL. It never launches or downloads a browser: it
// attaches with connectOverCDP. It prints one JSON object per operation:
//   {"op": "click", "runs": 20, "medianMs": 12.3, "minMs": 10.1}
import { run, timed, withContext } from './measure.mjs';

function parseArgs(argv) {
  const opts = { endpoint: '', runs: 20, urls: [], list: '', form: false, clicks: false, goto: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--endpoint') opts.endpoint = argv[++i];
    else if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--list') opts.list = argv[++i];
    else if (a === '--form') opts.form = true;
    else if (a === '--clicks') opts.clicks = true;
    else if (a === '--goto') opts.goto = true;
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}`);
    else opts.urls.push(a);
  }
  if (!opts.endpoint) throw new Error('--endpoint is required (the browser\'s DevTools WebSocket URL)');
  if (!(opts.runs >= 1)) throw new Error('--runs must be at least 1');
  if (opts.urls.length !== 2) throw new Error('want PAGE_URL and OTHER_URL');
  return opts;
}

// time runs fn once to warm up, then `runs` times, and prints the result.
async function time(op, runs, fn) {
  await fn(-1);
  console.log(JSON.stringify({ op, ...await timed(runs, fn) }));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const [pageURL, otherURL] = opts.urls;
  await withContext(opts.endpoint, async (context) => {
    const page = await context.newPage();
    try {
      if (opts.form) {
        // One block of e2e.BenchmarkFillPressInterleaved: fill and press
        // on PAGE_URL only, in a tab brought to the front.
        await page.goto(pageURL, { waitUntil: 'load' });
        await page.bringToFront();
        await time('fill', opts.runs, (i) => page.fill('#name', `Ada Lovelace ${i}`));
        await time('press', opts.runs, () => page.press('#name', 'Enter'));
        return;
      }
      if (opts.clicks) {
        // One block of e2e.BenchmarkClickInterleaved: click the last
        // item's button of the list at PAGE_URL by role and by css, in a
        // tab brought to the front.
        await page.goto(pageURL, { waitUntil: 'load' });
        await page.bringToFront();
        await time('click by role', opts.runs, () => page.getByRole('button', { name: 'Button 4999', exact: true }).click());
        await time('click by css', opts.runs, () => page.click('css=li:last-child > button'));
        return;
      }
      if (opts.goto) {
        // One block of e2e.BenchmarkGotoManyRequests, in a tab brought to
        // the front.
        await page.goto(pageURL, { waitUntil: 'load' });
        await page.bringToFront();
        await time('goto', opts.runs, (i) => page.goto(i % 2 ? pageURL : otherURL, { waitUntil: 'load' }));
        return;
      }
      if (opts.list) {
        // The list page of e2e.BenchmarkActionsList (5,000 items): click
        // the last item's button by role and by css, then its ariaSnapshot;
        // fill and press on PAGE_URL. No goto.
        await page.goto(opts.list, { waitUntil: 'load' });
        await time('click by role', opts.runs, () => page.getByRole('button', { name: 'Button 4999', exact: true }).click());
        await time('click by css', opts.runs, () => page.click('css=li:last-child > button'));
        await time('ariaSnapshot', opts.runs, () => page.locator('body').ariaSnapshot());
        await page.goto(pageURL, { waitUntil: 'load' });
        await time('fill', opts.runs, (i) => page.fill('#name', `Ada Lovelace ${i}`));
        await time('press', opts.runs, () => page.press('#name', 'Enter'));
        return;
      }
      await page.goto(pageURL, { waitUntil: 'load' });
      await time('click', opts.runs, () => page.click('#b'));
      await time('fill', opts.runs, (i) => page.fill('#name', `Ada Lovelace ${i}`));
      await time('press', opts.runs, () => page.press('#name', 'Enter'));
      await time('goto', opts.runs, (i) => page.goto(i % 2 ? pageURL : otherURL, { waitUntil: 'load' }));
    } finally {
      await page.close();
    }
  });
}

run('pw-actions', main);
