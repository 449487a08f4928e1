import { formatUsd, runCostSummary, splitSummary } from '../../common/usage-format.js';
import type { CostlyRunView, CostSplitAnswerView, CostSplitView } from '../../service/api-usage.js';
import type { History } from '../../service/history/open.js';
import { LIMITS } from '../../service/schemas.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { ageFlag, openCliHistory } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';
import { textTable } from './text-table.js';

/**
 * `hivewatch cost [--since 7d] [--by flow|run] [--flow F] [--category C] [--origin O] [--code C] [--limit N] [--json]`:
 * what agent attempts spent, split three ways (docs/triage.md "What failure costs"): by runs that
 * ended failed, on failed attempts of runs that did not (retried), by successful work. By flow:
 * every attempt that ended in the window, with the split per flow and over time; by run: the
 * costliest runs started in it. A session a Hivewatch attempt ran is counted through that attempt
 * only (docs/presets.md "Tokens and cost").
 */

const BY = ['flow', 'run'] as const;

const tokens = (u: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }): string =>
  `${u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens} in / ${u.outputTokens} out`;

const outcomeCost = (f: CostSplitView['failed']): string => (f.attempts > 0 && f.unknownCostAttempts === f.attempts ? 'unknown' : formatUsd(f.costUsd));

/** Attempts and tokens of the row's three parts: under an error filter, the attempts that failed with it. */
function splitUsage(s: CostSplitView): { attempts: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } {
  const parts = [s.failed, s.retried, s.succeeded];
  const sum = (key: 'attempts' | 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'): number => parts.reduce((n, p) => n + p[key], 0);
  return {
    attempts: sum('attempts'),
    inputTokens: sum('inputTokens'),
    outputTokens: sum('outputTokens'),
    cacheReadTokens: sum('cacheReadTokens'),
    cacheWriteTokens: sum('cacheWriteTokens'),
  };
}

function splitTable(answer: CostSplitAnswerView): string {
  const rows = answer.flows.map(({ flow, split }) => {
    const u = splitUsage(split);
    return [flow, String(u.attempts), tokens(u), outcomeCost(split.failed), outcomeCost(split.retried), outcomeCost(split.succeeded)];
  });
  return textTable([['FLOW', 'ATTEMPTS', 'TOKENS', 'FAILED RUNS', 'RETRIED', 'SUCCESSFUL'], ...rows]);
}

function trendTable(answer: CostSplitAnswerView): string {
  const points = answer.trend.points.filter((p) => p.failed + p.retried + p.succeeded > 0);
  if (points.length === 0) return '';
  const when = (at: number): string =>
    new Date(at)
      .toISOString()
      .slice(0, answer.trend.grain === 'day' ? 10 : 13)
      .replace('T', ' ') + (answer.trend.grain === 'hour' ? ':00' : '');
  const rows = points.map((p) => [when(p.at), formatUsd(p.failed), formatUsd(p.retried), formatUsd(p.succeeded)]);
  return `\nby ${answer.trend.grain} (UTC; ${answer.trend.points.length - points.length} empty ${answer.trend.grain}s left out):\n${textTable([[answer.trend.grain.toUpperCase(), 'FAILED RUNS', 'RETRIED', 'SUCCESSFUL'], ...rows])}`;
}

interface Window {
  since?: number;
  flow?: string;
  category?: string;
  origin?: string;
  code?: string;
}

function windowOf(args: ParsedArgs, now: number, by: string): Window {
  const rawSince = stringFlag(args, 'since');
  const age = rawSince === undefined ? null : ageFlag(rawSince, '--since');
  const window: Window = age !== null ? { since: now - age } : {};
  for (const key of ['flow', 'category', 'origin', 'code'] as const) {
    const value = stringFlag(args, key);
    if (value === undefined) continue;
    if (by === 'run' && key !== 'flow') throw new UsageError(`--${key} applies to --by flow (what failure costs); --by run lists the costliest runs`);
    window[key] = value;
  }
  return window;
}

async function byFlow(history: History, io: CliIo, window: Window, json: boolean): Promise<void> {
  const errorFiltered = window.category !== undefined || window.origin !== undefined || window.code !== undefined;
  const usageQuery = { ...(window.since !== undefined ? { since: window.since } : {}), ...(window.flow !== undefined ? { flow: window.flow } : {}) };
  const flows = errorFiltered ? [] : await history.api.usageByFlow(usageQuery);
  const split = await history.api.costSplit(window);
  if (json) {
    io.out(`${JSON.stringify({ since: window.since ?? null, flows, split })}\n`);
    return;
  }
  if (split.flows.length === 0) {
    io.out('no attempt reported tokens or cost in this range\n');
    return;
  }
  io.out(`${splitSummary(split.total)}${errorFiltered ? ' (successful work has no error, so an error filter leaves it out)' : ''}\n\n`);
  io.out(splitTable(split));
  io.out(trendTable(split));
}

export async function costCommand(args: ParsedArgs, io: CliIo, now = Date.now()): Promise<number> {
  const by = stringFlag(args, 'by') ?? 'flow';
  if (!(BY as readonly string[]).includes(by)) throw new UsageError(`--by must be flow or run, got "${by}"`);
  if (by === 'flow' && args.flags.has('limit')) throw new UsageError('--limit applies to --by run (the costliest runs); --by flow lists every flow');
  const window = windowOf(args, now, by);
  const history = await openCliHistory(args, io, { now: () => now });
  try {
    const json = args.flags.has('json');
    if (by === 'flow') {
      await byFlow(history, io, window, json);
      return ExitCode.ok;
    }
    const query = { ...(window.since !== undefined ? { since: window.since } : {}), ...(window.flow !== undefined ? { flow: window.flow } : {}) };
    const limit = intFlag(args, 'limit', 1, LIMITS.maxListLimit);
    const runs = await history.api.costliestRuns({ ...query, ...(limit !== undefined ? { limit } : {}) });
    if (json) io.out(`${JSON.stringify({ since: query.since ?? null, runs })}\n`);
    else if (runs.length === 0) io.out('no run started in this range reported tokens or cost\n');
    else io.out(textTable([['RUN', 'FLOW', 'STATUS', 'TOKENS', 'COST'], ...runs.map(runRow)]));
    return ExitCode.ok;
  } finally {
    await history.close();
  }
}

function runRow(r: CostlyRunView): string[] {
  const cost = runCostSummary(r, r.status);
  return [r.runId, r.flow, r.status, tokens(r), r.countedIn ? `${cost} (counted in ${r.countedIn.runId})` : cost];
}
