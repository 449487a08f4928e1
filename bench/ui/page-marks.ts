/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { Browser, Page, Request } from 'playwright-core';

/** What the history bench waits for in the page, timed from inside it (every frame). */

export const FIRST_ROW = "document.querySelector('.runs-table [data-run-id]') !== null";
/**
 * The Errors screen's numbers: the totals, the issues with their sparklines, the occurrences,
 * nothing loading. The four charts may still be drawing (recharts comes in its own chunk and
 * draws a frame after these paint).
 */
export const ERRORS_NUMBERS = `document.querySelector('.errors-page') !== null
  && document.querySelector('main .state-loading') === null
  && document.querySelector('.groups-table svg.sparkline') !== null
  && document.querySelector('.occurrence') !== null
  && document.querySelector('[data-testid="errors-total"]')?.textContent !== ''`;

/** The numbers, and every one of the four charts drawn by recharts (its bars in the page), or saying it has none. */
export const ERRORS_CHARTS = `(${ERRORS_NUMBERS})
  && document.querySelectorAll('.chart-card').length === 4
  && [...document.querySelectorAll('.chart-card')].every((card) => card.querySelector('.chart-empty') !== null || card.querySelector('.recharts-bar-rectangle') !== null)`;

const MARK_TIMEOUT_MS = 120_000;

/** performance.now() of the first frame in which `test` holds (rejects after two minutes). */
export async function waitMark(page: Page, test: string): Promise<number> {
  const [at] = await waitMarks(page, [test]);
  return at as number;
}

/** performance.now() of the first frame in which each of `tests` holds, all watched from one frame loop (rejects after two minutes). */
export function waitMarks(page: Page, tests: readonly string[]): Promise<number[]> {
  return page.evaluate(
    ({ sources, timeout }) =>
      new Promise<number[]>((done, fail) => {
        const checks = sources.map((source) => new Function(`return (${source})`) as () => boolean);
        const seen: (number | null)[] = sources.map(() => null);
        const until = performance.now() + timeout;
        const frame = (): void => {
          const now = performance.now();
          checks.forEach((check, i) => {
            if (seen[i] === null && check()) seen[i] = now;
          });
          if (seen.every((at) => at !== null)) done(seen as number[]);
          else if (now > until) fail(new Error(`not seen within ${timeout} ms: ${sources.filter((_, i) => seen[i] === null).join(' / ')}`));
          else requestAnimationFrame(frame);
        };
        frame();
      }),
    { sources: [...tests], timeout: MARK_TIMEOUT_MS },
  );
}

/**
 * A screen an open window moves away to before it opens the one timed in the window: the alert
 * rules (light, and none of the timed screens), settled once its rules' table is drawn.
 */
const AWAY = {
  hash: '#/settings/alerts',
  test: "document.querySelector('#alert-rules-title') !== null && document.querySelector('main .state-loading') === null",
};

/** The requests each page opened by `openAt` has in flight (its live stream aside: it never ends), and who waits for none. */
const inFlight = new WeakMap<Page, { open: Set<Request>; idle: (() => void)[] }>();

function trackRequests(page: Page): void {
  const tracked = { open: new Set<Request>(), idle: [] as (() => void)[] };
  inFlight.set(page, tracked);
  const ended = (request: Request): void => {
    tracked.open.delete(request);
    if (tracked.open.size === 0) for (const resolve of tracked.idle.splice(0)) resolve();
  };
  page.on('request', (request) => {
    if (!request.url().includes('/api/stream')) tracked.open.add(request);
  });
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
}

/** Resolves once `page` has no request in flight (none it was asked before, none since). */
function requestsSettled(page: Page): Promise<void> {
  const tracked = inFlight.get(page);
  if (!tracked) throw new Error('requestsSettled: the page was not opened by openAt');
  if (tracked.open.size === 0) return Promise.resolve();
  return new Promise((resolve) => tracked.idle.push(resolve));
}

/**
 * Opens `hash` inside an open window, as an operator does by a link or a key: the window first
 * goes to another screen (AWAY) and settles (its marks held and no request of the window in
 * flight: what the screen before it asked, such as the issue page's retry count, is answered),
 * then the hash is set and timed until each of `tests` holds. Nothing of the page is reloaded: the
 * window's code is in and its live stream connected; the screen's own chunk is in if it was
 * opened before.
 */
export async function openInWindow(page: Page, hash: string, tests: readonly string[]): Promise<number[]> {
  await page.evaluate((away) => (window.location.hash = away), AWAY.hash);
  await waitMarks(page, [AWAY.test]);
  await requestsSettled(page);
  return page.evaluate(
    ({ target, sources, timeout }) =>
      new Promise<number[]>((done, fail) => {
        const checks = sources.map((source) => new Function(`return (${source})`) as () => boolean);
        const seen: (number | null)[] = sources.map(() => null);
        const t0 = performance.now();
        window.location.hash = target;
        const frame = (): void => {
          const now = performance.now();
          checks.forEach((check, i) => {
            if (seen[i] === null && check()) seen[i] = now - t0;
          });
          if (seen.every((at) => at !== null)) done(seen as number[]);
          else if (now - t0 > timeout)
            fail(new Error(`${target}: not seen within ${timeout} ms in the window: ${sources.filter((_, i) => seen[i] === null).join(' / ')}`));
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    { target: hash, sources: [...tests], timeout: MARK_TIMEOUT_MS },
  );
}

export interface Opened {
  /** Navigation start → each test first held, in the order of the tests. */
  marks: number[];
  page: Page;
  close: () => Promise<void>;
}

/** Opens `url` in a fresh browser context (no HTTP cache, no storage) and times it until each of `tests` holds. */
export async function openAt(browser: Browser, url: string, tests: readonly string[]): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  trackRequests(page);
  await page.addInitScript(recordRunPages);
  await page.goto(url);
  const marks = await waitMarks(page, tests);
  return { marks, page, close: () => context.close() };
}

/**
 * Installed before the app loads: records each first page of `GET /api/runs` (alone or in a batch) the window
 * receives (when its request started, its first run id) so a filter change is timed until the
 * window paints the answer the server gave it, without asking the server anything beforehand.
 */
function recordRunPages(): void {
  const w = window as unknown as { __runPages: { startedAt: number; firstId: string | null }[] };
  w.__runPages = [];
  const original = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const startedAt = performance.now();
    const response = await original(input, init);
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, location.href);
    if (url.pathname === '/api/runs' && (init?.method ?? 'GET') === 'GET' && !url.searchParams.has('cursor')) {
      const body = (await response.clone().json()) as { items?: { id: string }[] };
      w.__runPages.push({ startedAt, firstId: body.items?.[0]?.id ?? null });
    }
    // Reads asked together travel as one batch (renderer/api/read-batch.ts): its first pages count the same.
    if (url.pathname === '/api/batch' && typeof init?.body === 'string') {
      const { calls } = JSON.parse(init.body) as { calls: { method: string; input?: { cursor?: string } }[] };
      const firstPages = calls.flatMap((call, i) => (call.method === 'listRuns' && call.input?.cursor === undefined ? [i] : []));
      if (firstPages.length > 0) {
        const { results } = (await response.clone().json()) as { results: { body?: { items?: { id: string }[] } }[] };
        for (const i of firstPages) w.__runPages.push({ startedAt, firstId: results[i]?.body?.items?.[0]?.id ?? null });
      }
    }
    return response;
  };
}

/** Sets the hash and times it until the table paints the first row of the server's answer to it (or its empty state). */
export function timeHashChange(page: Page, hash: string): Promise<number> {
  return page.evaluate(
    ({ target, timeout }) =>
      new Promise<number>((done, fail) => {
        const w = window as unknown as { __runPages: { startedAt: number; firstId: string | null }[] };
        const t0 = performance.now();
        window.location.hash = target;
        const frame = (): void => {
          const answer = [...w.__runPages].reverse().find((p) => p.startedAt >= t0);
          if (answer) {
            const first = document.querySelector('.runs-table [data-run-id]')?.getAttribute('data-run-id') ?? null;
            const empty = document.querySelector('.state-empty') !== null;
            if ((answer.firstId !== null && first === answer.firstId) || (answer.firstId === null && empty)) return done(performance.now() - t0);
          }
          if (performance.now() - t0 > timeout) return fail(new Error(`${target}: no answer painted within ${timeout} ms`));
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    { target: hash, timeout: MARK_TIMEOUT_MS },
  );
}
