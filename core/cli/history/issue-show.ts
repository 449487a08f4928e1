import { formatUsd, splitSummary } from '../../common/usage-format.js';
import type { IssueActivity, IssueDetail } from '../../service/api-issue-page.js';
import type { Issue, IssuePeriod } from '../../service/api-issues.js';
import type { HivewatchApi } from '../../service/api.js';
import { ExitCode, type CliIo } from '../io.js';

/**
 * `hivewatch issues show ID [--since 24h] [--json]`: the issue page of the window on the command
 * line (docs/triage.md "The issue page"), the same parts from the same service, and the newest
 * runs it hit with their cost. `--json` prints the page's answer and the runs.
 */

/** Runs affected shown (the window pages them; `hivewatch issues runs ID` lists 100). */
const RUNS_SHOWN = 10;

export const when = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return (
    rows
      .map((r) =>
        r
          .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** "+340 %", "−50 %", "new" (from nothing), "±0 %", or "—" without a previous period. */
export function changeWords(period: IssuePeriod): string {
  if (period.previous === null) return '—';
  if (period.change === null) return period.events > 0 ? 'new' : '—';
  const pct = Math.round(period.change * 100);
  return pct === 0 ? '±0 %' : `${pct > 0 ? '+' : '−'}${Math.abs(pct).toLocaleString('en-US')} %`;
}

const statusWords = (issue: Issue): string => (issue.substatus ? `${issue.status} (${issue.substatus})` : issue.status);

const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

function periodLines(issue: Issue, label: string): string[] {
  const p = issue.period;
  const before = p.previous === null ? '' : ` (${changeWords(p)} against the ${label.replace(/^last /, '')} before: ${p.previous.events})`;
  return [
    `events    ${p.events.toLocaleString('en-US')} ${p.since === null ? 'all time' : `in the ${label}`}${before} · ${issue.occurrences.toLocaleString('en-US')} all time`,
    `failures  ${p.failures.toLocaleString('en-US')} ${p.since === null ? 'all time' : `in the ${label}`} · ${issue.failures.toLocaleString('en-US')} all time · ${plural(issue.runs, 'run')} affected · ${plural(issue.flows, 'flow')}`,
  ];
}

function trendLine(issue: Issue): string {
  const unit = issue.trendBucketMs === 3_600_000 ? 'hour' : 'day';
  const values = issue.trend.map((n, i) => (issue.trendPartial && i === issue.trend.length - 1 ? `${n}*` : String(n)));
  return `trend     per ${unit} from ${when(issue.trendStart).slice(0, 16)}${issue.trendPartial ? ` (* this ${unit} so far)` : ''}: ${values.join(' ')}`;
}

function costLine(detail: IssueDetail): string {
  const c = detail.cost;
  if (c.failedRuns === 0) return 'cost      no run failed on it';
  if (c.reported === 0) return `cost      ${c.failedRuns} failed run${c.failedRuns === 1 ? '' : 's'}, none reported usage`;
  const unknown = c.unknownCostAttempts > 0 ? ` + ${c.unknownCostAttempts} attempt(s) of unknown cost` : '';
  return `cost      ${formatUsd(c.costUsd)}${unknown} spent by the ${c.reported} of its ${c.failedRuns} failed runs that reported usage`;
}

function activityLine(a: IssueActivity): string {
  const what =
    a.kind === 'first-seen'
      ? `first seen (${a.cause ?? ''})`
      : a.kind === 'alert'
        ? `alert ${a.alert?.kind ?? ''} ${a.alert?.status ?? ''}: ${a.text ?? ''}`
        : `${a.kind} by ${a.by ?? '?'}${a.text ? `: ${a.text}` : ''}`;
  return `  ${when(a.at)}  ${what}`;
}

function flowChangeLine(detail: IssueDetail): string {
  const change = detail.flowChange;
  if (change === null) return 'flow      unknown (its first occurrence is gone)';
  const digest = (d: string | null): string => (d === null ? 'digest unknown' : d.slice(0, 19));
  if (change.before === null) return `flow      first seen in the first run of ${change.flow} (${change.first.runId}, ${digest(change.first.digest)})`;
  const verdict = change.changed === null ? 'could not compare' : change.changed ? 'first seen after a flow change' : 'the flow had not changed';
  return `flow      ${verdict}: ${change.flow} ${digest(change.first.digest)} (run ${change.first.runId}) after ${digest(change.before.digest)} (run ${change.before.runId})`;
}

function issueText(detail: IssueDetail, label: string, periodCost: string): string {
  const { issue } = detail;
  const lines = [
    issue.title,
    `id        ${issue.id}`,
    `status    ${statusWords(issue)}: ${issue.why}`,
    `seen      first ${when(issue.firstSeen)} · last ${when(issue.lastSeen)}${issue.culprit ? ` · in ${issue.culprit}` : ''}`,
    ...periodLines(issue, label),
    trendLine(issue),
    `cost      ${issue.period.since === null ? 'all time' : `in the ${label}`}: ${periodCost}`,
    costLine(detail),
    `flows     ${detail.flows.map((f) => `${f.flowName} (${f.flow}) ${f.occurrences}`).join(' · ')}`,
    `origins   ${detail.origins.join(', ')}`,
    flowChangeLine(detail),
  ];
  const latest = detail.latest;
  if (latest) {
    const c = latest.occurrence.correlation;
    lines.push(
      `latest    ${when(latest.occurrence.ts)} run ${latest.occurrence.runId}${c.task ? ` task ${c.task}` : ''}${c.attempt !== null ? ` attempt ${c.attempt}` : ''}: ${latest.occurrence.message}`,
    );
    lines.push(`chain     ${latest.chain.map((e) => `${e.code}${e.correlation.attempt !== null ? ` (attempt ${e.correlation.attempt})` : ''}`).join(' ← ')}`);
  }
  lines.push('activity', ...detail.activity.map(activityLine));
  return `${lines.join('\n')}\n`;
}

/** What the page reads, through the service's API parts (the window's answers). */
export type IssueShowReads = Pick<HivewatchApi, 'getIssueDetail' | 'costSplit' | 'listRuns'>;

export async function showIssue(
  reads: IssueShowReads,
  id: string,
  scope: { since?: number; until?: number },
  label: string,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const detail = await reads.getIssueDetail({ id, ...scope });
  // The period's split, as the window's issue page shows it: what its failed runs spent and its retried attempts cost.
  const periodCost = await reads.costSplit({ ...scope, issue: detail.issue.id });
  const page = await reads.listRuns({ issue: detail.issue.id, limit: RUNS_SHOWN });
  const runs = page.items;
  if (json) {
    io.out(`${JSON.stringify({ ...detail, periodCost: periodCost.total, runs, moreRuns: page.nextCursor !== null })}\n`);
    return ExitCode.ok;
  }
  io.out(issueText(detail, label, splitSummary(periodCost.total)));
  if (runs.length === 0) return ExitCode.ok;
  io.out(`runs affected (newest ${runs.length} of ${detail.issue.runs}; all: hivewatch issues runs ${detail.issue.id})\n`);
  const rows = runs.map((r) => [
    r.id,
    r.status,
    r.flowName,
    when(r.startedAt),
    r.usage && r.usage.attempts > r.usage.unknownCostAttempts ? formatUsd(r.usage.costUsd) : '',
  ]);
  io.out(table([['RUN', 'STATUS', 'FLOW', 'STARTED', 'COST'], ...rows]));
  return ExitCode.ok;
}
