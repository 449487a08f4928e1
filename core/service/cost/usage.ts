import type { HivewatchStore } from '../../store/contract.js';
import type { CostlyRunView, FlowUsageView, RunDetail, RunSummary, UsageView } from '../api.js';
import { parseInput } from '../schemas.js';
import { guard } from '../service-context.js';
import type { HivewatchService } from '../service-types.js';

/**
 * Tokens and cost in the API: on run summaries (the Runs list and the run header),
 * on each attempt of a run's detail (the inspector), and per flow over a window (the Flows and
 * Errors screens). Read from the store's usage tables (migration 16), never from the journal.
 */

/** How many runs `costliestRuns` answers when not told (the CLI's `cost --by run`). */
const DEFAULT_COSTLIEST_RUNS = 20;

/** The summaries with each run's usage (null: its attempts reported none). */
export async function withRunUsage(store: HivewatchStore, summaries: RunSummary[]): Promise<RunSummary[]> {
  if (summaries.length === 0) return summaries;
  const usage = await store.usage({ kind: 'runs', runIds: summaries.map((s) => s.id) });
  return summaries.map((s) => {
    const found = usage.get(s.id);
    if (found === undefined) return { ...s, usage: null };
    const { runId: _runId, ...view } = found;
    return { ...s, usage: view satisfies UsageView };
  });
}

/** The detail with its run's usage and each attempt's own. */
export async function withDetailUsage(store: HivewatchStore, detail: RunDetail): Promise<RunDetail> {
  const [run] = await withRunUsage(store, [detail.run]);
  const attempts = await store.usage({ kind: 'attempts', runId: detail.run.id });
  const byAttempt = new Map(attempts.map((a) => [`${a.taskId}\n${a.attempt}`, a.usage]));
  return {
    ...detail,
    run: run ?? detail.run,
    tasks: detail.tasks.map((task) => ({
      ...task,
      attempts: task.attempts.map((a) => {
        const usage = byAttempt.get(`${task.taskId}\n${a.attempt}`);
        return usage ? { ...a, usage } : a;
      }),
    })),
  };
}

export function usageApi(store: HivewatchStore): Pick<HivewatchService, 'usageByFlow' | 'costliestRuns'> {
  return {
    usageByFlow: (input) =>
      guard(async (): Promise<FlowUsageView[]> => {
        const query = parseInput('usageByFlow', input);
        return store.usage({ kind: 'flows', query });
      }),
    costliestRuns: (input) =>
      guard(async (): Promise<CostlyRunView[]> => {
        const { limit, ...window } = parseInput('costliestRuns', input);
        return store.usage({ kind: 'costliestRuns', query: { ...window, limit: limit ?? DEFAULT_COSTLIEST_RUNS } });
      }),
  };
}
