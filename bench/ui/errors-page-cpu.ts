/// <reference lib="dom" />
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from './chromium.js';
import { cachedHistory } from './bulk-seed.js';
import { ERRORS_CHARTS, ERRORS_NUMBERS, waitMarks } from './page-marks.js';
import { ensureProductionRenderer } from './renderer-build.js';
import { startServe, stopServe, type Serve } from './serve.js';

/**
 * The Errors screen's page-side work: on a loaded machine wall times say
 * little, so this reads what the renderer itself spent until every panel was filled (the
 * numbers and the four recharts charts drawn) — the main thread's script and task time
 * (Chromium's Performance domain) and the time from the last API response to "filled" — and
 * when the first numbers (ERRORS_NUMBERS) were on screen, from navigation start and from the
 * last API answer before them. Each
 * sample opens the screen cold on a fresh serve of the cached 1M
 * history (any age: the 24 h range always holds errors). `--samples N` (default 5), `--range R`
 * (default 24h), `--size N` (default 1,000,000).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface Sample {
  numbersMs: number;
  numbersAfterLastResponseMs: number;
  filledMs: number;
  afterLastResponseMs: number;
  scriptMs: number;
  taskMs: number;
}

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] ?? 0);
};

async function openOnce(url: string): Promise<Sample> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(url);
    const [numbersMs = 0, filledMs = 0] = await waitMarks(page, [ERRORS_NUMBERS, ERRORS_CHARTS]);
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string): number => Math.round((metrics.find((m) => m.name === name)?.value ?? 0) * 1000);
    // The last API answer the window had before a mark: what came after it is the page's own work.
    const lastResponseBefore = (mark: number): Promise<number> =>
      page.evaluate(
        (at) =>
          Math.max(
            0,
            ...performance
              .getEntriesByType('resource')
              .filter((e) => e.name.includes('/api/') && (e as PerformanceResourceTiming).responseEnd <= at)
              .map((e) => (e as PerformanceResourceTiming).responseEnd),
          ),
        mark,
      );
    const lastResponse = await lastResponseBefore(filledMs);
    const lastBeforeNumbers = await lastResponseBefore(numbersMs);
    return {
      numbersMs: Math.round(numbersMs),
      numbersAfterLastResponseMs: Math.round(numbersMs - lastBeforeNumbers),
      filledMs: Math.round(filledMs),
      afterLastResponseMs: Math.round(filledMs - lastResponse),
      scriptMs: metric('ScriptDuration'),
      taskMs: metric('TaskDuration'),
    };
  } finally {
    await browser.close();
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  let values: { samples: string; range: string; size: string };
  try {
    // Strict: a misspelt option is refused rather than silently measuring the default workload.
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: { samples: { type: 'string', default: '5' }, range: { type: 'string', default: '24h' }, size: { type: 'string', default: '1000000' } },
    }));
  } catch (error) {
    console.error(
      `errors-page-cpu: ${error instanceof Error ? error.message : String(error)}\nusage: errors-page-cpu.js [--samples N] [--range 1h|24h|7d|30d|all] [--size N]`,
    );
    return 2;
  }
  const samples = Math.max(1, Number(values.samples) || 1);
  const range = values.range;
  const size = Number(values.size) || 1_000_000;
  ensureProductionRenderer(ROOT);
  const history = cachedHistory(size, size);
  const taken: Sample[] = [];
  for (let i = 0; i < samples; i++) {
    let serve: Serve | null = null;
    try {
      serve = await startServe(history.path);
      taken.push(await openOnce(`${serve.url.replace(/#.*$/, '')}#/errors?range=${range}`));
    } finally {
      await stopServe(serve);
    }
  }
  for (const s of taken)
    console.log(
      `numbers ${s.numbersMs} ms (last response → numbers ${s.numbersAfterLastResponseMs} ms) · filled ${s.filledMs} ms · last response → filled ${s.afterLastResponseMs} ms · script ${s.scriptMs} ms · tasks ${s.taskMs} ms`,
    );
  const pick = (key: keyof Sample): number => median(taken.map((s) => s[key]));
  console.log(
    `Errors ${range}, ${samples} cold opens, median: numbers ${pick('numbersMs')} ms, last response → numbers ${pick('numbersAfterLastResponseMs')} ms, filled ${pick('filledMs')} ms, last response → filled ${pick('afterLastResponseMs')} ms, renderer script ${pick('scriptMs')} ms, main-thread tasks ${pick('taskMs')} ms`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
