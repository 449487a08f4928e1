import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { retryImport } from '../../app/retry-import.js';
import { useRetryWhenRecovered } from '../../lib/use-retry-when-recovered.js';
import type { CountBars, SeriesBars, TrendBars } from './recharts-charts.js';

/**
 * recharts draws the Errors charts and an issue's trend from a chunk of its own, asked for with
 * the Errors screen's chunk and first data (app/screens.ts) or by the issue page's trend
 * when it mounts, so it never holds back the numbers: the counts, issues and occurrences paint
 * as their answers come, and each chart draws once this chunk is in and the page's numbers have
 * painted (NumbersFirst, useCharts). docs/decisions/0016-errors-screen.md, "The Errors charts".
 */

interface ChartsModule {
  CountBars: typeof CountBars;
  SeriesBars: typeof SeriesBars;
  TrendBars: typeof TrendBars;
}

let loading: Promise<ChartsModule> | null = null;

function loadCharts(): Promise<ChartsModule> {
  loading ??= retryImport(() => import('./recharts-charts.js')).catch((error: unknown) => {
    // Forgotten, so that "Try again" asks for the chunk afresh.
    loading = null;
    throw error;
  });
  return loading;
}

/** Starts loading the charts' chunk now; a failure shows in the charts when they mount. */
export function preloadCharts(): void {
  loadCharts().catch(() => undefined);
}

/**
 * Holds a page's charts until the numbers around them are on screen. Each part the page waits
 * for says once it has drawn its first answer (or its failure); the charts draw after the last.
 * A chart drawn before them (recharts lays out four charts in one ~100 ms task) held back the
 * render of the answer that came in behind it. Once open it stays open: later reads redraw the
 * charts in place, and a chart mounted later draws after its own first paint.
 */
export class NumbersFirst {
  private readonly waiting: Set<string>;
  private readonly listeners = new Set<() => void>();

  constructor(parts: readonly string[]) {
    this.waiting = new Set(parts);
  }

  /** `part` has drawn its first answer (or its failure). */
  shown(part: string): void {
    if (!this.waiting.delete(part) || this.waiting.size > 0) return;
    for (const listener of [...this.listeners]) listener();
  }

  /** Stops waiting for whatever has not drawn yet (an answer that is slow to come). */
  giveUp(): void {
    for (const part of [...this.waiting]) this.shown(part);
  }

  readonly isOpen = (): boolean => this.waiting.size === 0;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/** The longest the charts wait for the numbers beside them. */
const CHARTS_WAIT_AT_MOST_MS = 1_500;

/** The page's gate; none (an issue's trend) means a chart waits only for its own first paint. */
export const ChartsAfterNumbers = createContext<NumbersFirst | null>(null);

const noSubscription = (): (() => void) => () => undefined;
const alwaysOpen = (): boolean => true;

/**
 * The gate a page provides to its charts, waiting for `parts`. The page's own part (`own`, drawn
 * once `ownDrawn` holds) is told here: the page cannot read the gate it provides.
 */
export function useNumbersFirst(parts: readonly string[], own: string, ownDrawn: boolean): NumbersFirst {
  const [gate] = useState(() => new NumbersFirst(parts));
  useEffect(() => {
    if (ownDrawn) gate.shown(own);
  }, [gate, own, ownDrawn]);
  useEffect(() => {
    // An answer that hangs (no request here has a deadline) must not keep the charts from
    // drawing what did arrive: they wait for the numbers at most this long.
    const timer = setTimeout(() => gate.giveUp(), CHARTS_WAIT_AT_MOST_MS);
    return () => clearTimeout(timer);
  }, [gate]);
  return gate;
}

/** Tells the page's gate that `part` has drawn once `drawn` holds (in an effect: after its commit). */
export function useShownPart(part: string, drawn: boolean): void {
  const gate = useContext(ChartsAfterNumbers);
  useEffect(() => {
    if (drawn) gate?.shown(part);
  }, [gate, part, drawn]);
}

export type ChartsState = { state: 'ready'; charts: ChartsModule } | { state: 'waiting' } | { state: 'failed'; retry: () => void };

/**
 * The charts' module once it is loaded, the page's numbers are in (its NumbersFirst gate, if
 * any) and this chart's box has been painted without it: the chart waits one frame past that
 * paint, so the numbers beside it are on screen before recharts lays anything out.
 */
export function useCharts(): ChartsState {
  const [charts, setCharts] = useState<ChartsModule | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const gate = useContext(ChartsAfterNumbers);
  const open = useSyncExternalStore(gate?.subscribe ?? noSubscription, gate?.isOpen ?? alwaysOpen, gate?.isOpen ?? alwaysOpen);
  useEffect(() => {
    if (!open) return;
    let live = true;
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    loadCharts().then(
      (module) => {
        // A frame callback runs before that frame's paint; the task after it runs once it is painted.
        frame = requestAnimationFrame(() => {
          timer = setTimeout(() => live && setCharts(module));
        });
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [attempt, open]);
  const retry = () => {
    setFailed(false);
    setAttempt((n) => n + 1);
  };
  useRetryWhenRecovered(failed && !charts, retry);
  if (charts) return { state: 'ready', charts };
  if (failed) return { state: 'failed', retry };
  return { state: 'waiting' };
}
