import { formatUsd } from '../../common/usage-format.js';
import { bundledExamplesDir, appFlowsDirOf } from '../../service/flows/keys.js';
import { checkLoaded, FlowCatalog } from '../../service/flows/catalog.js';
import type { CostSplitView, FlowHealthView } from '../../service/api-usage.js';
import { stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { ageFlag, openCliHistory } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';
import { textTable } from './text-table.js';

/**
 * `hivewatch flows [--since 7d] [--sort attention|name|failures|success|duration|cost] [--json]`:
 * each flow's health (docs/triage.md "Flow health"): whether its file checks (a badge of its
 * own: "check ok" says nothing about its runs), its newest run's status, the runs that ended in
 * the window, success rate, median duration of its completed runs, the time its runs waited on
 * a person's approval (and how many wait now), and what it spent with the share spent on failure. Every flow with runs, and every flow of the catalog (the examples and
 * the app's flows folder beside the database) without any.
 */

type CheckState = 'ok' | 'errors' | 'no file' | 'session';

export interface FlowRow {
  flow: string;
  name: string;
  check: CheckState;
  /** How many problems `check` reports (errors only). */
  problems: number;
  health: Omit<FlowHealthView, 'flow' | 'flowName'>;
}

const SORTS = ['attention', 'name', 'failures', 'success', 'duration', 'cost'] as const;
type Sort = (typeof SORTS)[number];

const DEFAULT_SINCE = '7d';

const total = (s: CostSplitView): number => s.failed.costUsd + s.retried.costUsd + s.succeeded.costUsd;
const attempts = (s: CostSplitView): number => s.failed.attempts + s.retried.attempts + s.succeeded.attempts;

const emptyHealth = (): FlowRow['health'] => {
  const none = { attempts: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unknownCostAttempts: 0 };
  return {
    lastRun: null,
    ended: { completed: 0, failed: 0, cancelled: 0, interrupted: 0 },
    successRate: null,
    p50DurationMs: null,
    cost: { failed: { ...none }, retried: { ...none }, succeeded: { ...none } },
    approval: { waitedMs: 0, runs: 0, waitingNow: 0 },
  };
};

/** What the list leads with: a newest run that failed, then most failures, then the lowest success rate. */
const ORDER: Record<Sort, (a: FlowRow, b: FlowRow) => number> = {
  attention: (a, b) =>
    Number(b.health.lastRun?.status === 'failed') - Number(a.health.lastRun?.status === 'failed') ||
    b.health.ended.failed - a.health.ended.failed ||
    (a.health.successRate ?? 2) - (b.health.successRate ?? 2),
  name: () => 0,
  failures: (a, b) => b.health.ended.failed - a.health.ended.failed,
  success: (a, b) => (a.health.successRate ?? 2) - (b.health.successRate ?? 2),
  duration: (a, b) => (b.health.p50DurationMs ?? -1) - (a.health.p50DurationMs ?? -1),
  cost: (a, b) => total(b.health.cost) - total(a.health.cost),
};

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** "$4.10 · 72% on failure" (failed runs and retried attempts); "cost unknown" when no attempt had a price. */
function costShare(s: CostSplitView): string {
  const n = attempts(s);
  if (n === 0) return '—';
  const unknown = s.failed.unknownCostAttempts + s.retried.unknownCostAttempts + s.succeeded.unknownCostAttempts;
  if (unknown === n) return 'cost unknown';
  const spent = total(s);
  const share = spent === 0 ? 0 : Math.round(((s.failed.costUsd + s.retried.costUsd) / spent) * 100);
  return `${formatUsd(spent)}${unknown > 0 ? ' + unknown' : ''} · ${share}% on failure`;
}

/**
 * "12.0 min (2 runs) · 1 waiting now": what the flow's runs that ended in the window waited on a
 * person's approval, and how many wait now; "—" when none did or does.
 */
function waitedText(a: NonNullable<FlowRow['health']['approval']> = { waitedMs: 0, runs: 0, waitingNow: 0 }): string {
  const waited = a.runs > 0 ? `${formatDuration(a.waitedMs)} (${a.runs} run${a.runs === 1 ? '' : 's'})` : null;
  const now = a.waitingNow > 0 ? `${a.waitingNow} waiting now` : null;
  return [waited, now].filter((part) => part !== null).join(' · ') || '—';
}

async function catalogChecks(catalog: FlowCatalog, flows: readonly string[]): Promise<Map<string, { check: CheckState; problems: number; name: string }>> {
  const checks = new Map<string, { check: CheckState; problems: number; name: string }>();
  for (const info of await catalog.list()) {
    checks.set(info.id, { check: info.ok ? 'ok' : 'errors', problems: info.diagnostics.filter((d) => d.severity === 'error').length, name: info.name });
  }
  for (const flow of flows) {
    if (checks.has(flow)) continue;
    if (flow.startsWith('external:')) {
      checks.set(flow, { check: 'session', problems: 0, name: flow });
      continue;
    }
    try {
      const checked = checkLoaded(await catalog.loadForRun('', flow));
      checks.set(flow, { check: checked.ok ? 'ok' : 'errors', problems: checked.errorCount, name: flow });
    } catch {
      checks.set(flow, { check: 'no file', problems: 0, name: flow });
    }
  }
  return checks;
}

function rowsText(rows: readonly FlowRow[]): string {
  const lines = rows.map((r) => {
    const h = r.health;
    const verdicts = h.ended.completed + h.ended.failed;
    const check = r.check === 'errors' ? `check errors (${r.problems})` : r.check === 'ok' ? 'check ok' : r.check;
    return [
      r.flow,
      check,
      h.lastRun?.status ?? '—',
      h.successRate === null ? '—' : `${Math.round(h.successRate * 100)}% (${h.ended.completed}/${verdicts})`,
      String(h.ended.failed),
      h.p50DurationMs === null ? '—' : formatDuration(h.p50DurationMs),
      waitedText(h.approval),
      costShare(h.cost),
    ];
  });
  return textTable([['FLOW', 'CHECK', 'LAST', 'SUCCESS', 'FAILURES', 'P50', 'WAITED', 'COST'], ...lines]);
}

export async function flowsCommand(args: ParsedArgs, io: CliIo, now = Date.now()): Promise<number> {
  const rawSince = stringFlag(args, 'since') ?? DEFAULT_SINCE;
  const age = ageFlag(rawSince, '--since');
  const sort = (stringFlag(args, 'sort') ?? 'attention') as Sort;
  if (!SORTS.includes(sort)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')}, got "${sort}"`);
  const since = now - age;
  const history = await openCliHistory(args, io, { now: () => now });
  try {
    const health = await history.api.flowHealth({ since });
    const catalog = new FlowCatalog({ examplesDir: bundledExamplesDir(), userFlowsDir: appFlowsDirOf(history.location) });
    const checks = await catalogChecks(
      catalog,
      health.map((h) => h.flow),
    );
    const byFlow = new Map(health.map((h) => [h.flow, h]));
    const rows: FlowRow[] = [...new Set([...byFlow.keys(), ...checks.keys()])].map((flow) => {
      const found = byFlow.get(flow);
      const check = checks.get(flow) ?? { check: 'no file' as const, problems: 0, name: flow };
      const { flow: _flow, flowName, ...rest } = found ?? { flow, flowName: check.name, ...emptyHealth() };
      return { flow, name: flowName, check: check.check, problems: check.problems, health: rest };
    });
    rows.sort((a, b) => ORDER[sort](a, b) || (a.flow < b.flow ? -1 : a.flow > b.flow ? 1 : 0));
    if (args.flags.has('json')) io.out(`${JSON.stringify({ since, flows: rows })}\n`);
    else if (rows.length === 0) io.out('no flows: none has run, and neither the examples nor the flows folder has any\n');
    else io.out(`flows, runs ended since ${new Date(since).toISOString().slice(0, 16).replace('T', ' ')} UTC (${rawSince}):\n${rowsText(rows)}`);
    return ExitCode.ok;
  } finally {
    await history.close();
  }
}
