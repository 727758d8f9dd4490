// measure.mjs is what the pw-*.mjs scripts share: attaching to the
// caller's browser, timing an operation, and ending on an error.
import { chromium } from 'playwright-core';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// timed calls fn(i) for i = 0 … runs-1, each awaited, and returns
// {runs, medianMs, minMs}, rounded to `digits` decimals. A warm-up is the
// caller's.
export async function timed(runs, fn, digits = 1) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  const round = (x) => Math.round(x * 10 ** digits) / 10 ** digits;
  return { runs, medianMs: round(median(times)), minMs: round(Math.min(...times)) };
}

// withContext attaches to the browser at endpoint (connectOverCDP: it
// never launches or downloads one), calls fn with its default context,
// and disconnects only: the browser belongs to the caller.
export async function withContext(endpoint, fn) {
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    await fn(browser.contexts()[0] ?? await browser.newContext());
  } finally {
    await browser.close();
  }
}

// run runs main, and on an error prints it named after the script and
// exits with status 1.
export function run(name, main) {
  main().catch((err) => {
    console.error(`${name}: ${err.stack || err}`);
    process.exit(1);
  });
}
