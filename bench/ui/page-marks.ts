/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { Browser, Page } from 'playwright-core';

/** What the history bench waits for in the page, timed from inside it (every frame). */

export const FIRST_ROW = "document.querySelector('.runs-table [data-run-id]') !== null";
/** The Errors screen with every panel filled: totals, the chart, the groups with their sparklines, occurrences. */
export const ERRORS_FILLED = `document.querySelector('.errors-page') !== null
  && document.querySelector('main .state-loading') === null
  && document.querySelector('.groups-table svg.sparkline') !== null
  && document.querySelector('.occurrence') !== null
  && document.querySelector('[data-testid="errors-total"]')?.textContent !== ''`;

const MARK_TIMEOUT_MS = 120_000;

/** performance.now() of the first frame in which `test` holds (rejects after two minutes). */
export function waitMark(page: Page, test: string): Promise<number> {
  return page.evaluate(
    ({ source, timeout }) =>
      new Promise<number>((done, fail) => {
        const check = new Function(`return (${source})`) as () => boolean;
        const until = performance.now() + timeout;
        const frame = (): void => {
          if (check()) done(performance.now());
          else if (performance.now() > until) fail(new Error(`not seen within ${timeout} ms: ${source}`));
          else requestAnimationFrame(frame);
        };
        frame();
      }),
    { source: test, timeout: MARK_TIMEOUT_MS },
  );
}

export interface Opened {
  /** Navigation start → `test` first held. */
  ms: number;
  page: Page;
  close: () => Promise<void>;
}

/** Opens `url` in a fresh browser context (no HTTP cache, no storage) and times it until `test` holds. */
export async function openAt(browser: Browser, url: string, test: string): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(recordRunPages);
  await page.goto(url);
  const ms = await waitMark(page, test);
  return { ms, page, close: () => context.close() };
}

/**
 * Installed before the app loads: records each first page of `GET /api/runs` the window
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
