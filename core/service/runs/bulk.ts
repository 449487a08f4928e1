import { setImmediate as nextTurn } from 'node:timers/promises';
import type { HivewatchStore, RunRow } from '../../store/index.js';
import { BULK_MAX_RUNS, type BulkAction, type BulkResult, type BulkRunResult, type RunFilterInput } from '../api.js';
import { checkedBulkWhere } from './bulk-filter.js';
import { ApiError } from '../../common/api-errors.js';
import { asApiError } from '../wire-error.js';
import { flowRefScope, type FlowRefScope } from '../flows/ref.js';
import { newCommandId } from './hosted.js';
import { recoverIfHostGone } from './remote-commands.js';
import { parseInput } from '../schemas.js';
import { externalRefusal, guard, isExternal, type ServiceContext } from '../service-context.js';
import type { HivewatchService } from '../service-types.js';
import { isStoppedExternalSession } from '../../otel/session/stop-watching.js';

/**
 * Bulk actions: one action on many runs, named by id or by the Runs list's
 * filter (checked by bulk-filter.ts, then resolved here, when the call arrives). Each run goes through the same service method as
 * its single action, so it journals the same command with its own id and is refused for the same
 * reasons; what is refused is said per run. Runs are taken in chunks, and the event loop gets a
 * turn between chunks, so a thousand runs never hold up the other requests (docs/triage.md).
 */

/** Runs acted on at once: their store reads and journal flushes overlap; then the loop gets a turn. */
const BULK_CHUNK = 20;

type SingleActions = Pick<HivewatchService, 'cancelRun' | 'retryRun' | 'resumeRun' | 'skipBackoff'>;
interface Request {
  action: BulkAction;
  dryRun: boolean;
  reason: string;
}

const ACTIVE: readonly string[] = ['queued', 'running', 'cancelling'];
const RESUMABLE: readonly string[] = ['failed', 'cancelled', 'interrupted'];

const refused = (runId: string, message: string): BulkRunResult => ({ runId, outcome: 'refused', message });

/** What an external run's refusal names, per action (the single actions' words). */
const EXTERNAL_WHAT: Record<BulkAction, string> = {
  cancel: 'cancel it: stop the agent where it runs',
  retry: 'retry it: start the agent again where it runs',
  resume: 'resume it: the agent resumes its own sessions',
  retryNow: 'skip its backoff: the agent retries on its own schedule',
};

/** Why this run's status refuses the action, before anything is tried; null when it may go ahead. */
function statusRefusal(action: BulkAction, row: RunRow): string | null {
  const { id, status } = row;
  // An external session stopped by its usage limit takes a cancel: Hivewatch stops watching it (command-relay.ts).
  if (isExternal(row) && !(action === 'cancel' && isStoppedExternalSession(row))) return externalRefusal(row, EXTERNAL_WHAT[action]);
  switch (action) {
    case 'cancel':
      if (status === 'cancelling') return `run ${id} is already cancelling`;
      return ACTIVE.includes(status) ? null : `run ${id} is ${status}; nothing to cancel`;
    case 'retry':
      if (ACTIVE.includes(status)) return `run ${id} is ${status}; cancel it or let it finish before retrying`;
      return status === 'completed' ? `run ${id} completed; a completed run is retried on its own, never in bulk` : null;
    case 'resume':
      return RESUMABLE.includes(status) ? null : `run ${id} is ${status}; only failed, cancelled or interrupted runs can be resumed`;
    case 'retryNow':
      if (status !== 'running') return `run ${id} is ${status}; only a running run waits in a backoff`;
      // An attempt before the reset meets the same limit: the wait is not a backoff to cut short.
      if (row.waitingUntil !== null)
        return `run ${id} waits for its usage limit to reset; an attempt now would meet the limit again (cancel it to stop waiting)`;
      return row.nextAttemptAt === null ? `run ${id} is not waiting in a backoff` : null;
  }
}

/**
 * A run another process hosts whose host is gone cannot take a cancel: in a dry run that is said;
 * for real it is recovered (interrupted, as the single cancel does) and reported refused.
 */
async function deadHostRefusal(ctx: ServiceContext, row: RunRow, dryRun: boolean): Promise<string | null> {
  if (ctx.runs.get(row.id) || !ACTIVE.includes(row.status) || isExternal(row)) return null;
  const host = await ctx.store.runHost(row.id);
  if (host?.alive) return null;
  if (dryRun) {
    const owner = host ? `a dead host (pid ${host.pid})` : 'no live process';
    return `run ${row.id} is owned by ${owner}; it would be marked interrupted, not cancelled`;
  }
  const recovered = await recoverIfHostGone(ctx.store, { kind: 'cancel', commandId: newCommandId(), runId: row.id });
  return recovered?.message ?? null;
}

/** Skips every backoff the run waits in (one command per task); done when one was skipped. */
async function retryNow(ctx: ServiceContext, single: SingleActions, runId: string): Promise<BulkRunResult> {
  const detail = await ctx.store.getRun(runId);
  const waiting = detail?.tasks.filter((t) => t.status === 'backoff').map((t) => t.taskId) ?? [];
  if (waiting.length === 0) return refused(runId, `run ${runId} is not waiting in a backoff`);
  const acks = await Promise.all(waiting.map((taskId) => single.skipBackoff({ runId, taskId })));
  const skipped = acks.find((ack) => ack.accepted);
  return skipped ? { runId, outcome: 'done', commandId: skipped.commandId } : refused(runId, acks[0]?.message ?? `run ${runId} is not waiting in a backoff`);
}

async function actOn(ctx: ServiceContext, single: SingleActions, request: Request, runId: string): Promise<BulkRunResult> {
  const row = await ctx.store.getRunRow(runId);
  if (!row) return refused(runId, `no run ${runId}`);
  const refusal = statusRefusal(request.action, row) ?? (request.action === 'cancel' ? await deadHostRefusal(ctx, row, request.dryRun) : null);
  if (refusal !== null) return refused(runId, refusal);
  if (request.dryRun) return { runId, outcome: 'done' };
  try {
    switch (request.action) {
      case 'cancel': {
        const ack = await single.cancelRun({ runId, reason: request.reason });
        if (!ack.accepted) return refused(runId, ack.message ?? `run ${runId} refused the cancel`);
        return { runId, outcome: 'done', commandId: ack.commandId, ...(ack.message !== undefined ? { message: ack.message } : {}) };
      }
      case 'retry':
        return { runId, outcome: 'done', newRunId: (await single.retryRun({ runId })).runId };
      case 'resume':
        return { runId, outcome: 'done', newRunId: (await single.resumeRun({ runId })).runId };
      case 'retryNow':
        return await retryNow(ctx, single, runId);
    }
  } catch (error) {
    const reason = asApiError(error);
    return refused(runId, reason instanceof Error ? reason.message : String(reason));
  }
}

/** The runs a filter matches now, newest first; more than BULK_MAX_RUNS is a 400 (act in parts). */
async function resolveFilter(store: HivewatchStore, where: RunFilterInput): Promise<string[]> {
  const tooMany = (total: string): ApiError =>
    new ApiError(
      'too_many_runs',
      `the filter matches ${total} runs; a bulk action takes at most ${BULK_MAX_RUNS} at once; narrow it (status, flow, since) and act in parts`,
    );
  const { total, atLeast, totalExact } = await store.countRuns(where);
  const lowerBound = atLeast === true && totalExact !== true;
  if (total > BULK_MAX_RUNS) throw tooMany(lowerBound ? `at least ${total}` : String(total));
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ ...where, limit: 1_000, cursor });
    for (const run of page.runs) ids.push(run.id);
    cursor = page.nextCursor;
  } while (cursor !== null && ids.length <= BULK_MAX_RUNS);
  // A capped count (a text filter stops counting at 2,000) is a lower bound: the pages decide.
  if (lowerBound && ids.length > BULK_MAX_RUNS) throw tooMany(`more than ${BULK_MAX_RUNS}`);
  return ids.slice(0, BULK_MAX_RUNS);
}

/** Where a filter's `flow` finds flow files: this service's folders; no directory (the API has none). */
function flowsOf(ctx: ServiceContext): FlowRefScope {
  return flowRefScope(ctx.store, { examplesDir: ctx.options.examplesDir, userFlowsDir: ctx.options.userFlowsDir ?? null }, null);
}

export function bulkApi(ctx: ServiceContext, single: SingleActions): Pick<HivewatchService, 'bulkRuns'> {
  return {
    bulkRuns: (input) =>
      guard(async (): Promise<BulkResult> => {
        const args = parseInput('bulkRuns', input);
        // Statuses are read from the database: what this process journaled must be there first.
        await ctx.writePending();
        const runIds = args.runIds
          ? [...new Set(args.runIds)]
          : await resolveFilter(ctx.store, await checkedBulkWhere(args.where ?? {}, args.all === true, flowsOf(ctx)));
        const request: Request = { action: args.action, dryRun: args.dryRun ?? false, reason: args.reason ?? 'cancelled by the operator (bulk)' };
        const results: BulkRunResult[] = [];
        for (let at = 0; at < runIds.length; at += BULK_CHUNK) {
          if (at > 0) await nextTurn();
          const chunk = runIds.slice(at, at + BULK_CHUNK);
          results.push(...(await Promise.all(chunk.map((runId) => actOn(ctx, single, request, runId)))));
        }
        const done = results.filter((r) => r.outcome === 'done').length;
        return { action: request.action, dryRun: request.dryRun, matched: runIds.length, done, refused: results.length - done, results };
      }),
  };
}
