import { costSummary } from '../base/usage-format.js';
import type { CostlyRun, FlowUsage } from '../store/index.js';
import { LIMITS } from '../service/schemas.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { ageFlag, openCliStore } from './database.js';
import { ExitCode, type CliIo } from './io.js';

/**
 * `hivewatch cost [--since 7d] [--by flow|run] [--flow F] [--limit N] [--json]`: what agent
 * attempts cost (issue 22), failed attempts' share included. By flow: every attempt that ended
 * in the window; by run: the costliest runs started in it. A session a Hivewatch attempt ran is
 * counted through that attempt only (docs/presets.md "Tokens and cost").
 */

const BY = ['flow', 'run'] as const;

const tokens = (u: FlowUsage | CostlyRun): string => `${u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens} in / ${u.outputTokens} out`;

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n') + '\n';
}

export async function costCommand(args: ParsedArgs, io: CliIo, now = Date.now()): Promise<number> {
  const by = stringFlag(args, 'by') ?? 'flow';
  if (!(BY as readonly string[]).includes(by)) throw new UsageError(`--by must be flow or run, got "${by}"`);
  if (by === 'flow' && args.flags.has('limit')) throw new UsageError('--limit applies to --by run (the costliest runs); --by flow lists every flow');
  const rawSince = stringFlag(args, 'since');
  const age = rawSince === undefined ? null : ageFlag(rawSince, '--since');
  const query = { ...(age !== null ? { since: now - age } : {}), ...(stringFlag(args, 'flow') !== undefined ? { flow: stringFlag(args, 'flow') as string } : {}) };
  const store = await openCliStore(args, io);
  try {
    const json = args.flags.has('json');
    if (by === 'flow') {
      const flows = await store.usage({ kind: 'flows', query });
      if (json) io.out(`${JSON.stringify({ since: query.since ?? null, flows })}\n`);
      else if (flows.length === 0) io.out('no attempt reported tokens or cost in this range\n');
      else io.out(table([['FLOW', 'ATTEMPTS', 'TOKENS', 'COST'], ...flows.map((f) => [f.flow, String(f.attempts), tokens(f), costSummary(f)])]));
      return ExitCode.ok;
    }
    const runs = await store.usage({ kind: 'costliestRuns', query: { ...query, limit: intFlag(args, 'limit', 1, LIMITS.maxListLimit) ?? 20 } });
    if (json) io.out(`${JSON.stringify({ since: query.since ?? null, runs })}\n`);
    else if (runs.length === 0) io.out('no run started in this range reported tokens or cost\n');
    else {
      const rows = runs.map((r) => [r.runId, r.flow, tokens(r), r.countedIn ? `${costSummary(r)} (counted in ${r.countedIn.runId})` : costSummary(r)]);
      io.out(table([['RUN', 'FLOW', 'TOKENS', 'COST'], ...rows]));
    }
    return ExitCode.ok;
  } finally {
    await store.close();
  }
}
