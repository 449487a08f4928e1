/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { quantile, serves, type Judged } from './judged.js';
import { describeLoads, startLoad, type Load, type LoadReport } from './load-beside.js';
import { describeSplits, openSplit, type OpenSplit } from './open-split.js';
import { openAt, openInWindow } from './page-marks.js';
import { startServe, stopServe, type Serve } from './serve.js';

/**
 * One screen of the history bench opened cold and warm on fresh serves, quiet or under load, and
 * its marks judged: history-perf.ts's Runs and Errors screens, and cost-health-perf.ts's.
 */

/**
 * The quick form's bound on screens (20,000 runs, 2 samples a screen, 1 a filtered screen: what CI
 * runs beside other work; docs/benches.md "Quick forms"). At that size a screen's own reads are a
 * few milliseconds, so its open is the page's work and the machine's load (0.3–2.6 s at loads of
 * 7–10): the bound on every mark is what a screen that takes seconds would miss. The store's reads
 * have quick bounds of their own (cost-health-perf.ts).
 */
export const QUICK_SCREEN_MS = 8_000;

/** What one open of a screen times: from navigation start until `test` first holds, judged against `target` ms (warm opens against `warmTarget` when it is set). */
export interface Mark {
  label: string;
  test: string;
  target: number;
  warmTarget?: number;
}

/** What writes beside a loaded sample's opens (load-beside.ts): the database's ingest token and the live runs' flow. */
export interface LoadSetup {
  token: string;
  flow: string;
}

export interface Timed {
  cold: number[][];
  warm: number[][];
  /** Opened again inside the warm open's window, from another screen (page-marks.ts `openInWindow`). */
  inWindow: number[][];
  splits: { cold: OpenSplit[]; warm: OpenSplit[] };
  /** What the load did in each sample, when there was one. */
  loads: LoadReport[];
}

/**
 * Cold and warm opens of one screen, a fresh serve per sample; for each mark, its times in order.
 * Cold is the serve's first open, warm its second, each in a fresh browser context (no HTTP cache,
 * no compiled code: the window's page start is timed every time). Then the warm open's window goes
 * to another screen and back, as an operator moves between screens: the open in the window.
 * With `load`, each serve also has the OTLP stream and the live runs writing from before its cold
 * open until after its warm one.
 */
export async function coldAndWarm(
  browser: Browser,
  dbPath: string,
  hash: string,
  marks: readonly Mark[],
  samples: number,
  load: LoadSetup | null = null,
): Promise<Timed> {
  const cold: number[][] = marks.map(() => []);
  const warm: number[][] = marks.map(() => []);
  const inWindow: number[][] = marks.map(() => []);
  const splits = { cold: [] as OpenSplit[], warm: [] as OpenSplit[] };
  const loads: LoadReport[] = [];
  for (let i = 0; i < samples; i++) {
    let serve: Serve | null = null;
    let running: Load | null = null;
    try {
      serve = load === null ? await startServe(dbPath) : await startServe(dbPath, {}, ['--otel-port', '0']);
      if (load !== null) running = await startLoad(serve, load.token, load.flow);
      const base = serve.url.replace(/#.*$/, '');
      for (const [into, split] of [
        [cold, splits.cold],
        [warm, splits.warm],
      ] as const) {
        const opened = await openAt(
          browser,
          `${base}${hash}`,
          marks.map((m) => m.test),
        );
        opened.marks.forEach((ms, m) => into[m]?.push(ms));
        // Read after every mark is timed: the first mark's split, untimed.
        split.push(await openSplit(opened.page, opened.marks[0] ?? 0));
        if (into === warm) {
          const again = await openInWindow(
            opened.page,
            hash,
            marks.map((m) => m.test),
          );
          again.forEach((ms, m) => inWindow[m]?.push(ms));
        }
        await opened.close();
      }
    } finally {
      // The serve is stopped even when stopping the load fails (that failure still ends the bench).
      try {
        if (running !== null) loads.push(await running.stop());
      } finally {
        await stopServe(serve);
      }
    }
  }
  return { cold, warm, inWindow, splits, loads };
}

/** Each mark's cold and warm p95 of one screen's opens, judged against its target (the quick form's bound with `--quick`). */
export function judgeOpens(name: string, marks: readonly Mark[], { cold, warm, inWindow, splits, loads }: Timed, quick: boolean): Judged[] {
  const beside = loads.length === 0 ? '' : `; beside ${describeLoads(loads)}`;
  return marks.flatMap(({ label, target: full, warmTarget: warmFull = full }, m) => {
    const [c, w, n] = [cold[m] ?? [], warm[m] ?? [], inWindow[m] ?? []];
    const target = quick ? QUICK_SCREEN_MS : full;
    const warmTarget = quick ? QUICK_SCREEN_MS : warmFull;
    const quickNote = quick ? ` (--quick; < ${full} ms in the full run)` : '';
    const warmQuickNote = quick ? ` (--quick; < ${warmFull} ms in the full run)` : '';
    const split = (of: OpenSplit[]): string => (m === 0 ? `; ${describeSplits(of)}` : '');
    return [
      {
        name: `${name}, ${label}, cold p95`,
        value: quantile(c, 0.95),
        unit: 'ms',
        target,
        detail: `navigation start → ${label}; first open on a fresh serve, ${serves(c.length)}; p50 ${quantile(c, 0.5)} ms${quickNote}${split(splits.cold)}${beside}`,
      },
      {
        name: `${name}, ${label}, warm p95`,
        value: quantile(w, 0.95),
        unit: 'ms',
        target: warmTarget,
        detail: `navigation start → ${label}; second open on the same serve, ${serves(w.length)}; p50 ${quantile(w, 0.5)} ms${warmQuickNote}${split(splits.warm)}${beside}`,
      },
      {
        name: `${name}, ${label}, in the window p95`,
        value: quantile(n, 0.95),
        unit: 'ms',
        target: warmTarget,
        detail: `hash change → ${label}, from another screen of the warm open's window, ${serves(n.length)}; p50 ${quantile(n, 0.5)} ms${warmQuickNote}${beside}`,
      },
    ];
  });
}
