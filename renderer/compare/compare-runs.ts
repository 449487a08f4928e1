import type { RunDetail, RunStatus, TaskView } from '../../core/service/api.js';
import { formatUsd, reportedNothing } from '../../core/common/usage-format.js';
import { runCostLine, tokenLine } from '../lib/cost-format.js';
import { endingKind, endingSentence, factsOf } from '../lib/ending-story.js';
import { failureSummary } from '../lib/failure-headline.js';
import { formatDuration } from '../lib/format.js';
import { waitedWords } from '../lib/waited-words.js';
import { stepWords } from '../lib/step-words.js';

/**
 * Two runs side by side: the run's own facts, then one row group per task,
 * matched by task id (`<step>:<ordinal>`: the same place in the same flow), with what an
 * operator compares — outcome, attempts, time spent, errors, output. A cell that differs from
 * its other side is marked. Pure, for tests.
 */

export interface CompareRow {
  /** Stable React key. */
  key: string;
  label: string;
  /** null: the task has no such place in that run (it never started there). */
  left: string | null;
  right: string | null;
  differs: boolean;
  /** Multi-line text (outputs): shown preformatted. */
  block?: boolean;
}

export interface CompareGroup {
  key: string;
  title: string;
  /** The title's tooltip: a task's prompt as the flow wrote it, when its name filled in values. */
  hint?: string;
  rows: CompareRow[];
}

const row = (key: string, label: string, left: string | null, right: string | null, block = false): CompareRow => ({
  key,
  label,
  left,
  right,
  differs: left !== right,
  ...(block ? { block } : {}),
});

/** Time spent in attempts (backoffs not counted), or null while one runs. */
function attemptTime(task: TaskView): number | null {
  let total = 0;
  for (const a of task.attempts) {
    if (a.endedAt === null) return null;
    total += a.endedAt - a.startedAt;
  }
  return total;
}

/** Each failed attempt's code, in order: "RUNTIME_RATE_LIMIT, RUNTIME_RATE_LIMIT"; "none". */
function attemptErrors(task: TaskView): string {
  const codes = task.attempts.flatMap((a) => (a.error ? [a.error.code] : []));
  return codes.length === 0 ? 'none' : codes.join(', ');
}

/**
 * What a task's attempts spent, in the run's words: all of a failed run's spend is "failed run";
 * otherwise its failed attempts are "retried" and the rest "successful". "cost unknown" for
 * tokens without a price, "none reported" when nothing was consumed (never $0.00).
 */
function taskCost(task: TaskView, status: RunStatus): string {
  const used = task.attempts.flatMap((a) => (a.usage ? [{ usage: a.usage, failed: a.status === 'failed' }] : []));
  const tokens = used.reduce(
    (n, u) => n + (u.usage.inputTokens ?? 0) + (u.usage.outputTokens ?? 0) + (u.usage.cacheReadTokens ?? 0) + (u.usage.cacheWriteTokens ?? 0),
    0,
  );
  const priced = used.filter((u) => u.usage.costUsd !== undefined);
  const cost = priced.reduce((n, u) => n + (u.usage.costUsd ?? 0), 0);
  if (used.length === 0 || (tokens === 0 && cost === 0)) return 'none reported';
  if (priced.length === 0) return 'cost unknown';
  const total = `${formatUsd(cost)}${priced.length < used.length ? ' + unknown' : ''}`;
  if (status === 'failed') return `${total} · failed run`;
  const failed = priced.filter((u) => u.failed).reduce((n, u) => n + (u.usage.costUsd ?? 0), 0);
  return failed > 0 ? `${total} · ${formatUsd(failed)} retried · ${formatUsd(cost - failed)} successful` : total;
}

/** A task's tokens: "2,700 in · 320 out"; "none reported". */
function taskTokens(task: TaskView): string {
  const sum = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const a of task.attempts) for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += a.usage?.[key] ?? 0;
  return sum.inputTokens + sum.outputTokens + sum.cacheReadTokens + sum.cacheWriteTokens === 0 ? 'none reported' : tokenLine(sum);
}

function taskRows(
  taskId: string,
  left: TaskView | undefined,
  right: TaskView | undefined,
  runs: { virtual: boolean; status: [RunStatus, RunStatus] },
): CompareRow[] {
  const virtual = runs.virtual;
  const of = (t: TaskView | undefined, f: (t: TaskView) => string): string | null => (t ? f(t) : null);
  const time = (t: TaskView): string => {
    const ms = attemptTime(t);
    return ms === null ? 'running' : formatDuration(ms);
  };
  return [
    row(
      `${taskId}/status`,
      'Outcome',
      of(left, (t) => t.status),
      of(right, (t) => t.status),
    ),
    row(
      `${taskId}/attempts`,
      'Attempts',
      of(left, (t) => `${t.attempts.length} of ${t.maxAttempts}`),
      of(right, (t) => `${t.attempts.length} of ${t.maxAttempts}`),
    ),
    row(`${taskId}/time`, virtual ? 'Time in attempts (run clock)' : 'Time in attempts', of(left, time), of(right, time)),
    row(`${taskId}/errors`, 'Attempt errors', of(left, attemptErrors), of(right, attemptErrors)),
    row(
      `${taskId}/cost`,
      'Cost',
      of(left, (t) => taskCost(t, runs.status[0])),
      of(right, (t) => taskCost(t, runs.status[1])),
    ),
    row(`${taskId}/tokens`, 'Tokens', of(left, taskTokens), of(right, taskTokens)),
    row(
      `${taskId}/final-error`,
      'Task error',
      of(left, (t) => (t.error ? `${t.error.code}: ${t.error.message}` : 'none')),
      of(right, (t) => (t.error ? `${t.error.code}: ${t.error.message}` : 'none')),
    ),
    row(
      `${taskId}/output`,
      'Output',
      of(left, (t) => t.output ?? '—'),
      of(right, (t) => t.output ?? '—'),
      true,
    ),
  ];
}

/** The run's cost by outcome (as its header says it), or "none reported". */
function runCostText(d: RunDetail): string {
  const usage = d.run.usage ?? null;
  return (usage && runCostLine(usage, d.run.status)) ?? 'none reported';
}

function runTokens(d: RunDetail): string {
  const usage = d.run.usage ?? null;
  return usage === null || reportedNothing(usage) ? 'none reported' : tokenLine(usage);
}

/** Time the run waited on a person's answer to permission prompts (docs/otel.md "Waiting for approval"): "12 min", "none", "+ waiting now". */
function personWait(d: RunDetail): string {
  const waited = d.run.approvalWaitMs ?? 0;
  const total = waited > 0 ? waitedWords(waited) : 'none';
  const live = d.run.status === 'running' || d.run.status === 'cancelling';
  return live && d.run.approval ? `${total} · waiting for approval of ${d.run.approval.label} now` : total;
}

export function compareRuns(left: RunDetail, right: RunDetail): CompareGroup[] {
  const a = left.run;
  const b = right.run;
  const duration = (d: RunDetail): string => (d.run.durationMs === null ? 'running' : formatDuration(d.run.durationMs));
  const wall = (d: RunDetail): string => (d.run.endedWall === null ? 'running' : formatDuration(d.run.endedWall - d.run.startedWall));
  const virtual = a.clock === 'virtual' || b.clock === 'virtual';
  // Why each run ended (rule 16), not its newest error: a completed or live run has none.
  const ending = (d: RunDetail): string => {
    const kind = endingKind(d.run);
    if (kind === null || d.run.endingError === null) return 'none';
    if (kind !== 'failed') return endingSentence(kind, d.run.endingError);
    return failureSummary(d.run.endingError, factsOf(d.tasks));
  };
  const groups: CompareGroup[] = [
    {
      key: 'run',
      title: 'Run',
      rows: [
        row('flow', 'Flow', `${a.flowName} (${a.flow})`, `${b.flowName} (${b.flow})`),
        row('status', 'Status', a.status, b.status),
        row('duration', virtual ? 'Duration (run clock)' : 'Duration', duration(left), duration(right)),
        // A virtual clock jumps over backoffs: the real time is the other half of the story.
        ...(virtual ? [row('wall-duration', 'Duration (real)', wall(left), wall(right))] : []),
        row('clock', 'Clock', a.clock, b.clock),
        row('steps', 'Step reached', stepWords(a).text, stepWords(b).text),
        row('attempts', 'Attempts', String(a.attempts), String(b.attempts)),
        row('errors', 'Errors', String(a.errorCount), String(b.errorCount)),
        row('ending-error', 'Ended by', ending(left), ending(right)),
        row('cost', 'Cost', runCostText(left), runCostText(right)),
        row('tokens', 'Tokens', runTokens(left), runTokens(right)),
        row('approval-wait', 'Waiting on a person', personWait(left), personWait(right)),
      ],
    },
  ];
  const leftTasks = new Map(left.tasks.map((t) => [t.taskId, t]));
  const rightTasks = new Map(right.tasks.map((t) => [t.taskId, t]));
  // Tasks in the order they ran (step, ordinal), those of either run.
  const ids = [...new Set([...leftTasks.keys(), ...rightTasks.keys()])];
  const place = (id: string): [number, number] => {
    const t = leftTasks.get(id) ?? rightTasks.get(id);
    return t ? [t.step, t.ordinal] : [0, 0];
  };
  ids.sort((x, y) => place(x)[0] - place(y)[0] || place(x)[1] - place(y)[1]);
  for (const id of ids) {
    const l = leftTasks.get(id);
    const r = rightTasks.get(id);
    // Each run's task is named by the prompt it ran: two runs given other values read apart.
    const names = [...new Set([l?.name, r?.name].filter((n): n is string => n !== undefined))];
    const templates = [...new Set([l?.template, r?.template].filter((n): n is string => n !== undefined))];
    const hint = templates.length > 0 ? { hint: `prompt as written: ${templates.join(' / ')}` } : {};
    groups.push({
      key: `task-${id}`,
      title: `${names.join(' / ')} (task ${id})`,
      ...hint,
      rows: taskRows(id, l, r, { virtual, status: [a.status, b.status] }),
    });
  }
  return groups;
}
