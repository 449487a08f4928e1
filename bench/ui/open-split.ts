/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { quantile } from './judged.js';

/**
 * Where one open's time went, up to a mark (navigation start → the mark, in the page's clock),
 * from the page's Resource Timing of the API requests answered before the mark:
 *  - server: the server's own time on them (their `Server-Timing: app;dur=`, server/http.ts),
 *    counted where requests overlap as the time some answer was being worked on;
 *  - transfer: the rest of the time some request was in flight (asking, queueing in `serve`
 *    before its handler ran, the answer's bytes);
 *  - page: everything else: the document and scripts, the first render, the answers' drawing.
 * The three add up to the mark; of the page's part, how much came before the first request went
 * out (the document, the scripts, the window's start) is said too. A request's server time is
 * placed at the end of its wait for the first byte (the server answers as soon as it is done).
 */
export interface OpenSplit {
  serverMs: number;
  transferMs: number;
  pageMs: number;
  /** Of `pageMs`: navigation start → the first API request's start. */
  beforeFirstRequestMs: number;
}

export function openSplit(page: Page, markAt: number): Promise<OpenSplit> {
  return page.evaluate((until) => {
    const requests = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
      (entry) => new URL(entry.name).pathname.startsWith('/api/') && entry.responseEnd > 0 && entry.responseEnd <= until,
    );
    const covered = (spans: [number, number][]): number => {
      let total = 0;
      let reach = Number.NEGATIVE_INFINITY;
      for (const [from, to] of spans.sort((a, b) => a[0] - b[0])) {
        const start = Math.max(from, reach);
        if (to > start) total += to - start;
        reach = Math.max(reach, to);
      }
      return total;
    };
    const inFlight = covered(requests.map((r) => [r.startTime, r.responseEnd]));
    const serving = covered(
      requests.map((r) => {
        const dur = r.serverTiming.find((t) => t.name === 'app')?.duration ?? 0;
        return [Math.max(r.requestStart, r.responseStart - dur), r.responseStart];
      }),
    );
    const firstRequest = Math.min(until, ...requests.map((r) => r.startTime));
    return {
      serverMs: Math.round(serving),
      transferMs: Math.round(inFlight - serving),
      pageMs: Math.round(until - inFlight),
      beforeFirstRequestMs: Math.round(firstRequest),
    };
  }, markAt);
}

/** `server s · transfer t · page p (before the first request b) ms`, each the median of the opens. */
export function describeSplits(splits: readonly OpenSplit[]): string {
  if (splits.length === 0) return 'no split';
  const of = (key: keyof OpenSplit): number =>
    quantile(
      splits.map((s) => s[key]),
      0.5,
    );
  return `split (medians): server ${of('serverMs')} · transfer ${of('transferMs')} · page ${of('pageMs')} (before the first request ${of('beforeFirstRequestMs')}) ms`;
}
