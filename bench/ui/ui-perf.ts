/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { seedRuns } from './seed.js';
import { installSyntheticBackend, type Truth } from './synthetic-backend.js';

/**
 * UI performance in Chromium, reported (not asserted):
 *  1. the Runs table over a real `hivewatch serve` with 10,000 seeded runs: first contentful
 *     paint, first rows painted, the count read from the server; frame times while scrolling the
 *     loaded pages (history-perf.ts measures the 1,000,000-run history);
 *  2. a stream of 2,000 events/s for 30 s into 200 running runs (10,000 more in the table) from a
 *     synthetic IPC bridge: frame times, the longest main-thread task (PerformanceObserver
 *     'longtask'), and whether the table ends consistent with the backend's own truth.
 *
 *   npm run build && npx vite build && node dist/bench/ui/ui-perf.js [--quick] [--json]
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CHROME_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

interface FrameStats {
  frames: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  over50ms: number;
}

function frameStats(deltas: number[]): FrameStats {
  const sorted = [...deltas].sort((a, b) => a - b);
  const at = (q: number): number => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { frames: deltas.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1), over50ms: deltas.filter((d) => d > 50).length };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export async function startServe(dbPath: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'hivewatch.js'), 'serve', '--port', '0', '--db', dbPath], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL:\n${out}`)), 60_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Open:\s+(\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
  });
  return { url, child };
}

/** Marks when rows first show and when the count reads `expected`; collects long tasks. */
function installProbes(expected: string): void {
  const w = window as unknown as { __marks: Record<string, number>; __longtasks: number[] };
  w.__marks = {};
  w.__longtasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__longtasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  const check = (): void => {
    if (w.__marks.firstRows === undefined && document.querySelector('.runs-table [data-run-id]')) w.__marks.firstRows = performance.now();
    if (w.__marks.allRows === undefined && document.querySelector('[data-testid="runs-count"]')?.textContent?.startsWith(expected)) {
      w.__marks.allRows = performance.now();
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

async function scrollFrames(page: Page, frames: number): Promise<number[]> {
  return page.evaluate(async (n) => {
    const el = document.querySelector('[data-testid="runs-scroll"]') as HTMLElement;
    const step = Math.max(1, Math.floor((el.scrollHeight - el.clientHeight) / n));
    const deltas: number[] = [];
    let last = 0;
    await new Promise<void>((done) => {
      let i = 0;
      const frame = (t: number): void => {
        if (last) deltas.push(t - last);
        last = t;
        el.scrollTop += step;
        if (++i <= n) requestAnimationFrame(frame);
        else done();
      };
      requestAnimationFrame(frame);
    });
    return deltas;
  }, frames);
}

async function loadTable(browser: Browser, url: string, runs: number): Promise<{ fcp: number; firstRows: number; allRows: number; scroll: FrameStats; longest: number }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(installProbes, `${runs.toLocaleString('en-US')} runs`);
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __marks: { allRows?: number } }).__marks.allRows !== undefined, undefined, { timeout: 120_000 });
  const marks = await page.evaluate(() => {
    const m = (window as unknown as { __marks: Record<string, number> }).__marks;
    return { firstRows: m.firstRows, allRows: m.allRows, fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0 };
  });
  const deltas = await scrollFrames(page, 600);
  const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { __longtasks: number[] }).__longtasks));
  await context.close();
  return { fcp: marks.fcp ?? 0, firstRows: marks.firstRows ?? 0, allRows: marks.allRows ?? 0, scroll: frameStats(deltas), longest };
}

interface RowRead {
  status: string;
  step: number;
  attempts: number;
  errorCount: number;
}

async function readRows(page: Page): Promise<Record<string, RowRead>> {
  return page.evaluate(async () => {
    const el = document.querySelector('[data-testid="runs-scroll"]') as HTMLElement;
    const out: Record<string, { status: string; step: number; attempts: number; errorCount: number }> = {};
    el.scrollTop = 0;
    for (;;) {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (const row of el.querySelectorAll('[data-run-id]')) {
        const nums = [...row.querySelectorAll('.cell-num')].map((c) => c.textContent ?? '');
        out[row.getAttribute('data-run-id') as string] = {
          status: row.getAttribute('data-status') as string,
          step: parseInt(nums[1] ?? '', 10),
          attempts: parseInt(nums[2] ?? '', 10),
          errorCount: parseInt(nums[3] ?? '', 10),
        };
      }
      if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) break;
      el.scrollTop += el.clientHeight;
    }
    return out;
  });
}

async function streamRun(browser: Browser, url: string, options: { runs: number; active: number; rate: number; seconds: number }) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(installSyntheticBackend, { runs: options.runs, active: options.active, now: Date.now() });
  await page.addInitScript(installProbes, `${(options.runs + options.active).toLocaleString('en-US')} runs`);
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __marks: { allRows?: number } }).__marks.allRows !== undefined, undefined, { timeout: 120_000 });
  await page.evaluate(() => {
    (window as unknown as { __longtasks: number[] }).__longtasks.length = 0;
  });

  const started = Date.now();
  const [delivered, deltas] = await Promise.all([
    page.evaluate(({ rate, seconds }) => (window as unknown as { __perf: { stream(r: number, s: number): Promise<number> } }).__perf.stream(rate, seconds), options),
    page.evaluate(async (seconds) => {
      const deltas: number[] = [];
      let last = 0;
      const until = performance.now() + seconds * 1000;
      await new Promise<void>((done) => {
        const frame = (t: number): void => {
          if (last) deltas.push(t - last);
          last = t;
          if (t < until) requestAnimationFrame(frame);
          else done();
        };
        requestAnimationFrame(frame);
      });
      return deltas;
    }, options.seconds),
  ]);
  const streamMs = Date.now() - started;
  const longtasks = await page.evaluate(() => [...(window as unknown as { __longtasks: number[] }).__longtasks]);

  // The end state: every streamed run completed, each row as the backend's truth says.
  await page.waitForFunction(
    () => document.querySelector('.chip.status-running .chip-count')?.textContent === '0',
    undefined,
    { timeout: 60_000 },
  );
  const truth = await page.evaluate(() => (window as unknown as { __perf: { truth(): Record<string, Truth> } }).__perf.truth());
  await page.evaluate(() => {
    window.location.hash = '#/runs?q=run_stream';
  });
  await page.waitForFunction((n) => document.querySelector('[data-testid="runs-count"]')?.textContent?.startsWith(`${n} runs match`), options.active);
  const rows = await readRows(page);
  const mismatches: string[] = [];
  for (const [id, want] of Object.entries(truth)) {
    const got = rows[id];
    if (!got) mismatches.push(`${id}: not shown`);
    else if (got.status !== want.status || got.step !== want.step || got.attempts !== want.attempts || got.errorCount !== want.errorCount) {
      mismatches.push(`${id}: shows ${JSON.stringify(got)}, store has ${JSON.stringify(want)}`);
    }
  }
  await context.close();
  return {
    delivered,
    eventsPerSecond: Math.round(delivered / (streamMs / 1000)),
    frames: frameStats(deltas),
    longTasks: longtasks.length,
    longestTaskMs: Math.round(Math.max(0, ...longtasks)),
    consistent: mismatches.length === 0,
    checkedRuns: Object.keys(truth).length,
    mismatches: mismatches.slice(0, 5),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const json = argv.includes('--json');
  if (!existsSync(join(ROOT, 'renderer-dist', 'index.html'))) {
    console.error('renderer-dist/ is missing: run `npx vite build` first');
    return 2;
  }
  const chrome = process.env.CHROME_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chrome)) {
    console.error(`No Chromium at ${chrome}: install Debian's chromium or set CHROME_PATH`);
    return 2;
  }
  const runs = quick ? 2_000 : 10_000;
  const seconds = quick ? 5 : 30;
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-ui-perf-'));
  const dbPath = join(dir, 'perf.db');
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  try {
    const seedStart = Date.now();
    const events = seedRuns(dbPath, runs);
    const seedMs = Date.now() - seedStart;
    const started = await startServe(dbPath);
    server = started.child;
    browser = await chromium.launch({ executablePath: chrome, args: CHROME_ARGS });

    const loads = [];
    for (let i = 0; i < 3; i++) loads.push(await loadTable(browser, `${started.url}#/runs`, runs));
    const table = {
      runs,
      seededEvents: events,
      seedMs,
      fcpMs: Math.round(median(loads.map((l) => l.fcp))),
      firstRowsMs: Math.round(median(loads.map((l) => l.firstRows))),
      allRowsMs: Math.round(median(loads.map((l) => l.allRows))),
      scroll: loads[loads.length - 1]?.scroll,
      longestTaskDuringLoadAndScrollMs: Math.round(Math.max(...loads.map((l) => l.longest))),
    };
    // 9,800 finished + 200 running: the 10,000 the table loads.
    const stream = await streamRun(browser, `${started.url}#/runs`, { runs: runs - 200, active: 200, rate: 2_000, seconds });
    const result = { table, stream };
    mkdirSync(join(ROOT, 'artifacts', 'perf'), { recursive: true });
    writeFileSync(join(ROOT, 'artifacts', 'perf', 'ui-perf.json'), `${JSON.stringify(result, null, 2)}\n`);
    if (json) console.log(JSON.stringify(result, null, 2));
    else {
      console.log(`Runs table, ${runs.toLocaleString('en-US')} runs over HTTP (median of 3 loads):`);
      console.log(`  first contentful paint ${table.fcpMs} ms · first rows ${table.firstRowsMs} ms · all ${runs.toLocaleString('en-US')} loaded ${table.allRowsMs} ms`);
      console.log(`  scrolling top to bottom: ${JSON.stringify(table.scroll)} (frame ms)`);
      console.log(`  longest task while loading and scrolling: ${table.longestTaskDuringLoadAndScrollMs} ms`);
      console.log(`Live stream, 2,000 events/s for ${seconds} s into 200 running runs (${(runs - 200).toLocaleString("en-US")} more in the table):`);
      console.log(`  delivered ${stream.delivered} events (${stream.eventsPerSecond}/s) · frames ${JSON.stringify(stream.frames)}`);
      console.log(`  long tasks: ${stream.longTasks}, the longest ${stream.longestTaskMs} ms (target < 100 ms)`);
      console.log(`  view consistent with the store: ${stream.consistent ? 'yes' : 'NO'} (${stream.checkedRuns} runs checked)${stream.mismatches.length ? `\n  ${stream.mismatches.join('\n  ')}` : ''}`);
    }
    return stream.consistent ? 0 : 1;
  } finally {
    await browser?.close();
    if (server) {
      const exited = new Promise((r) => server?.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
