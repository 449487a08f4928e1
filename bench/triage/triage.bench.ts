import Database from 'better-sqlite3';
import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, type Measurement } from '../harness/measure.js';
import { bulkSeed, cachedHistory } from '../ui/bulk-seed.js';
import { apiOf, startServe, stopServe, type Serve } from '../ui/serve.js';
import { comparable, triageAsks, type Ask } from './triage-asks.js';
import { wholeOption } from '../harness/flags.js';

/**
 * Triage at scale (docs/benches.md "Triage at scale"): the issue page, the issues sorted by trend
 * over 30 days, the cost split, an issue's cost and flow health, on the bulk history of 1,000,000
 * runs and 10,000,000 errors (`--quick`: 10,000 and 100,000, seeded afresh and removed). Each
 * figure is asked of a real `hivewatch serve` over HTTP, a fresh serve per sample: its first
 * answer is the cold figure, a second on the same serve the warm one; p95 of `--samples` (20,
 * `--quick` 3) judged < 500 ms cold and < 300 ms warm. Beside it, in the same run on the same file,
 * the rollup-free baseline (triage-asks.ts) on a fresh read-only connection, first and second
 * read (`--baseline-samples`, 3 at full size, where one read takes seconds). Every answer the
 * serve gave must equal the baseline's, figure by figure, or the run fails.
 */

const FULL = { runs: 1_000_000, errors: 10_000_000 };
const QUICK = { runs: 10_000, errors: 100_000 };
/** The history's newest hours need not be fresh here (every window is fixed at the bench's start): reused for 6 hours. */
const HISTORY_MAX_AGE_MS = 6 * 3_600_000;

interface Options {
  quick: boolean;
  samples: number;
  baselineSamples: number;
  errors: number;
}

function triageOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean' },
      json: { type: 'boolean' },
      samples: { type: 'string' },
      'baseline-samples': { type: 'string' },
      errors: { type: 'string' },
    },
  });
  const quick = values.quick === true;
  const samples = wholeOption(values.samples, 'samples', quick ? 3 : 20);
  return {
    quick,
    samples,
    baselineSamples: wholeOption(values['baseline-samples'], 'baseline-samples', quick ? samples : 3),
    errors: wholeOption(values.errors, 'errors', quick ? QUICK.errors : FULL.errors),
  };
}

interface Timed {
  cold: number[];
  warm: number[];
  answers: unknown[];
}

async function askServe(dbPath: string, ask: Ask, samples: number): Promise<Timed> {
  const out: Timed = { cold: [], warm: [], answers: [] };
  for (let i = 0; i < samples; i++) {
    let serve: Serve | null = null;
    try {
      serve = await startServe(dbPath);
      const api = apiOf(serve.url);
      for (const into of [out.cold, out.warm]) {
        const started = performance.now();
        const answer = await ask.api(api);
        into.push(performance.now() - started);
        out.answers.push(comparable(answer));
      }
    } finally {
      await stopServe(serve);
    }
  }
  return out;
}

function askBaseline(dbPath: string, ask: Ask, samples: number): Timed {
  const out: Timed = { cold: [], warm: [], answers: [] };
  for (let i = 0; i < samples; i++) {
    const db = new Database(dbPath, { readonly: true });
    try {
      for (const into of [out.cold, out.warm]) {
        const started = performance.now();
        const answer = ask.baseline(db);
        into.push(performance.now() - started);
        out.answers.push(comparable(answer));
      }
    } finally {
      db.close();
    }
  }
  return out;
}

/** The first place two answers differ, for the report ("$.flows[2][1]: 40 ≠ 41"). */
function firstDifference(a: unknown, b: unknown, at = '$'): string {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${at}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const [x, y] = [(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]];
    if (!isDeepStrictEqual(x, y)) return firstDifference(x, y, `${at}.${key}`);
  }
  return `${at}: equal`;
}

function judged(ask: Ask, served: Timed, base: Timed): Measurement[] {
  const round = (ms: number): number => Math.round(ms * 10) / 10;
  const figure = (side: 'cold' | 'warm', target: number): Measurement => {
    const value = round(percentile(served[side], 95));
    const baseline = round(percentile(base[side], 95));
    const what = side === 'cold' ? "a fresh serve's first answer" : 'its second answer';
    return {
      name: `triage: ${ask.name}, ${side} p95`,
      value,
      unit: 'ms',
      baseline,
      ratio: baseline / Math.max(0.1, value),
      target: `< ${target} ms`,
      pass: value < target,
      note: `${ask.timed}; ${what}, ${served[side].length} serves, p50 ${round(percentile(served[side], 50))} ms. Baseline: the rollup-free GROUP BYs on a fresh connection (${side === 'cold' ? 'first' : 'second'} read), p95 ${baseline} ms over ${base[side].length}`,
    };
  };
  const expected = base.answers[0];
  const empty = expected === undefined || !ask.holdsFigures(expected);
  const answers = [...served.answers, ...base.answers];
  const agrees = ask.agrees ?? isDeepStrictEqual;
  const wrong = answers.findIndex((answer) => !agrees(answer, expected));
  const agree: Measurement = {
    name: `triage: ${ask.name}, the serve's answers equal the baseline's`,
    value: wrong === -1 && !empty ? 1 : 0,
    unit: 'equal',
    target: 'every answer equal',
    pass: wrong === -1 && !empty,
    note: empty
      ? 'the baseline found nothing to compare on this history (an empty window or no spend): the figure proves nothing'
      : wrong === -1
        ? `${served.answers.length} answers from the serve and ${base.answers.length} from the baseline, compared whole (money to $0.0001)`
        : `answer ${wrong + 1} of ${answers.length} (the serve's first) differs from the baseline's: ${firstDifference(answers[wrong], expected)}`,
  };
  return [figure('cold', ask.coldTarget), figure('warm', ask.warmTarget), agree];
}

/** The issue with the most occurrences: the page with the most to read. */
function busiestIssue(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true });
  try {
    const row = db.prepare('SELECT fingerprint FROM error_groups ORDER BY count DESC, fingerprint LIMIT 1').get() as { fingerprint: string } | undefined;
    if (!row) throw new Error('triage bench: the history holds no issue');
    return row.fingerprint;
  } finally {
    db.close();
  }
}

function historyFor(options: Options): { path: string; cleanup: () => void; label: string } {
  if (options.quick) {
    const dir = mkdtempSync(join(tmpdir(), 'hivewatch-triage-'));
    const path = join(dir, 'history.db');
    bulkSeed(path, { runs: QUICK.runs, errors: options.errors, now: Date.now() });
    return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }), label: `${QUICK.runs} runs, ${options.errors} errors (seeded for this run)` };
  }
  const cached = cachedHistory(FULL.runs, options.errors, HISTORY_MAX_AGE_MS);
  return {
    path: cached.path,
    cleanup: () => undefined,
    label: `${FULL.runs} runs, ${options.errors} errors (${cached.generatedMs ? `generated in ${(cached.generatedMs / 1000).toFixed(0)} s` : 'cached'}: ${cached.path})`,
  };
}

export async function triageBenchmarks(argv: readonly string[]): Promise<Measurement[]> {
  const options = triageOptions(argv);
  const history = historyFor(options);
  try {
    // Every window ends here, after the history's newest error: the serve and the baseline count the same rows.
    const until = Date.now();
    const fingerprint = busiestIssue(history.path);
    const measurements: Measurement[] = [];
    for (const ask of triageAsks(fingerprint, until)) {
      const served = await askServe(history.path, ask, options.samples);
      const base = askBaseline(history.path, ask, options.baselineSamples);
      const figures = judged(ask, served, base);
      // Each figure as it is taken (a full run takes many minutes; the report comes at its end).
      for (const m of figures)
        process.stderr.write(`${m.name}: ${m.value} ${m.unit}${m.baseline === undefined ? '' : ` (baseline ${m.baseline} ms)`}${m.pass ? '' : ' MISSED'}\n`);
      measurements.push(...figures);
    }
    measurements.push({ name: 'triage: history', value: options.errors, unit: 'errors', note: history.label });
    return measurements;
  } finally {
    history.cleanup();
  }
}
