/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { quantile, type Judged } from './judged.js';
import { ERRORS_CHARTS, FIRST_ROW, openAt, timeHashChange, waitMark } from './page-marks.js';
import { apiOf, startServe, stopServe, type Api, type Serve } from './serve.js';

/**
 * The history bench's session on one serve (history-perf.ts): an operator's filter, sort and
 * text-search changes on Runs, paging the table, the renderer's heap after opening Errors, and how
 * soon a live run's end is painted.
 */

/** Filter, sort and text-search changes an operator makes on the Runs screen. */
const CHANGES = [
  'status=failed',
  'status=failed&code=RUNTIME_TIMEOUT',
  'status=failed&category=git',
  'sort=-duration',
  'sort=status',
  'sort=-errors',
  'flow=examples%2F03-flaky-tests.prose',
  'flow=examples%2F03-flaky-tests.prose&sort=flow',
  'status=cancelled&range=7d',
  'q=merge%20conflict',
  'q=run_bulk00001',
  'q=no-run-has-this-text',
  'status=completed,failed&sort=-attempts',
  '',
];

/**
 * The quick form's bounds for this session (history-perf.ts, docs/benches.md "Quick forms"): at
 * load the page's own work sets these times (changes p95 97 ms, a live run 40 ms at a load of
 * 7), so each bound is about ten times that: a change answered or painted in a second, or a
 * run's end painted half a second late (polled rather than streamed), would miss it. The heap is
 * judged as in the full run.
 */
const QUICK_CHANGE_MS = 1_000;
const QUICK_LIVE_MS = 500;

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const used = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  return Math.round((used / 1_048_576) * 10) / 10;
}

/** Scrolls the runs table to its end until `pages` more keyset pages are in; returns the rows loaded. */
async function pageThrough(page: Page, pages: number): Promise<number> {
  // The virtual list is as tall as the rows it holds (44 px a row).
  const rows = (): Promise<number> => page.evaluate(() => Math.round((document.querySelector('[data-testid="runs-scroll"]') as HTMLElement).scrollHeight / 44));
  for (let i = 0; i < pages; i++) {
    const before = await page.evaluate(() => (document.querySelector('[data-testid="runs-scroll"]') as HTMLElement).scrollHeight);
    await page.evaluate(() => {
      const el = document.querySelector('[data-testid="runs-scroll"]') as HTMLElement;
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForFunction((h) => (document.querySelector('[data-testid="runs-scroll"]') as HTMLElement).scrollHeight > h, before);
  }
  return rows();
}

async function liveLatency(page: Page, api: Api, runs: number): Promise<number[]> {
  await page.evaluate(() => {
    window.location.hash = '#/runs';
    const w = window as unknown as { __done: Record<string, number> };
    w.__done = {};
    new MutationObserver(() => {
      for (const row of document.querySelectorAll('.runs-table [data-run-id][data-status="completed"]')) {
        const id = row.getAttribute('data-run-id') as string;
        w.__done[id] ??= Date.now();
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { runId } = await api.post<{ runId: string }>('/api/runs', { flow: 'examples/01-happy-path.prose' });
    await page.waitForFunction((id) => (window as unknown as { __done: Record<string, number> }).__done[id] !== undefined, runId, { timeout: 60_000 });
    const shownAt = await page.evaluate((id) => (window as unknown as { __done: Record<string, number> }).__done[id] as number, runId);
    const detail = await api.get<{ run: { endedWall: number | null } } | null>(`/api/runs/${runId}`);
    if (detail?.run.endedWall) latencies.push(shownAt - detail.run.endedWall);
  }
  return latencies;
}

/** Filter changes, the heap and live latency, on one fresh serve. */
export async function runsSession(browser: Browser, dbPath: string, quick: boolean): Promise<Judged[]> {
  let serve: Serve | null = null;
  try {
    serve = await startServe(dbPath);
    const api = apiOf(serve.url);
    const opened = await openAt(browser, `${serve.url.replace(/#.*$/, '')}#/runs`, [FIRST_ROW]);
    const rounds = quick ? 2 : 3;
    const answered: { change: string; ms: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const change of CHANGES)
        answered.push({ change: change || '(no filter)', ms: Math.round(await timeHashChange(opened.page, `#/runs${change ? `?${change}` : ''}`)) });
    }
    const firsts = answered.slice(0, CHANGES.length).map((a) => a.ms);
    const slowest = [...answered].sort((a, b) => b.ms - a.ms).slice(0, 3);
    await opened.page.evaluate(() => {
      window.location.hash = '#/runs';
    });
    await waitMark(opened.page, FIRST_ROW);
    const rowsLoaded = await pageThrough(opened.page, quick ? 3 : 10);
    await opened.page.evaluate(() => {
      window.location.hash = '#/errors';
    });
    await waitMark(opened.page, ERRORS_CHARTS);
    const heap = await heapMb(opened.page);
    const latencies = await liveLatency(opened.page, api, quick ? 10 : 20);
    await opened.close();
    const all = answered.map((a) => a.ms);
    return [
      {
        name: 'Runs filter / sort / text search answered and painted, p95',
        value: quantile(all, 0.95),
        unit: 'ms',
        target: quick ? QUICK_CHANGE_MS : 200,
        detail: `${quick ? '--quick; < 200 ms in the full run; ' : ''}${all.length} changes (${CHANGES.length} × ${rounds} rounds); first round p95 ${quantile(firsts, 0.95)} ms, p50 overall ${quantile(all, 0.5)} ms; slowest: ${slowest.map((s) => `${s.change} ${s.ms} ms`).join(' · ')}`,
      },
      { name: 'renderer JS heap after paging Runs and opening Errors', value: heap, unit: 'MB', target: 100, detail: `about ${rowsLoaded} rows paged in` },
      {
        name: 'live run, runCompleted journaled → row painted, p95',
        value: quantile(latencies, 0.95),
        unit: 'ms',
        target: quick ? QUICK_LIVE_MS : 100,
        detail: `${quick ? '--quick; < 100 ms in the full run; ' : ''}p50 ${quantile(latencies, 0.5)} ms over ${latencies.length} runs`,
      },
    ];
  } finally {
    await stopServe(serve);
  }
}
