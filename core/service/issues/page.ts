import { causeOf, type ErrorEnvelope } from '../../base/errors/envelope.js';
import { emptyIssueState, isStaleRow, foldIssueLog } from '../../store/issues/issue-state.js';
import type { HivewatchStore } from '../../store/index.js';
import type { FlowRun, IssueLogRow } from '../../store/issues/issues.js';
import { alertDeliveriesAbout } from '../alerts/alerts-api.js';
import type { IssueActivity, IssueDetail, IssueDetailInput, IssueFlowChange, IssueFlowVersion } from '../api-issue-page.js';
import type { Issue } from '../api-issues.js';
import type { IssueBook } from './book.js';
import { errorOccurrence } from '../mapping.js';

/**
 * An issue's page (docs/triage.md "The issue page"): the issue in the scope asked, its latest
 * occurrence with the cause chain, the flows it hit, its activity (its log, its first
 * occurrence, the alerts delivered about it), whether it was first seen after its flow changed,
 * and what its failed runs cost. Each part is one issue's indexed read or a rollup: bounded
 * however long the history.
 */

/** A cause chain longer than this is cut (a chain is a handful of links; a loop in old data must not hang the page). */
const MAX_CHAIN = 20;

function chainOf(envelope: ErrorEnvelope): ErrorEnvelope[] {
  const chain: ErrorEnvelope[] = [];
  for (let link: ErrorEnvelope | null = envelope; link !== null && chain.length < MAX_CHAIN; link = causeOf(link)) chain.push(link);
  return chain;
}

/** The log's rows that changed something (a stale system row changed nothing: issue-state.ts). */
function effectiveRows(fingerprint: string, rows: readonly IssueLogRow[]): IssueLogRow[] {
  const kept: IssueLogRow[] = [];
  for (const row of rows) {
    const state = foldIssueLog(kept).get(fingerprint) ?? emptyIssueState(fingerprint);
    if (!isStaleRow(state, row)) kept.push(row);
  }
  return kept;
}

function activityOf(issue: Issue, rows: readonly IssueLogRow[], first: { ref: string; at: number } | null, alerts: IssueActivity['alert'][]): IssueActivity[] {
  const entries: IssueActivity[] = [];
  if (first) entries.push({ kind: 'first-seen', at: first.at, by: null, text: null, cause: first.ref, ignore: null, alert: null });
  for (const row of effectiveRows(issue.id, rows)) {
    entries.push({
      kind: row.kind,
      at: row.at,
      by: row.actor === 'system' ? `host:${row.host}` : row.actor,
      text: row.reason,
      cause: row.cause,
      ignore: row.ignore,
      alert: null,
    });
  }
  for (const alert of alerts) {
    if (alert) entries.push({ kind: 'alert', at: alert.sentAt ?? alert.createdAt, by: null, text: alert.title, cause: null, ignore: null, alert });
  }
  // Oldest first; at one time a status change before the alert it caused.
  return entries.sort((a, b) => a.at - b.at || Number(a.kind === 'alert') - Number(b.kind === 'alert'));
}

async function versionOf(store: HivewatchStore, run: FlowRun): Promise<IssueFlowVersion> {
  const [started] = await store.getEvents(run.id, 0, 1);
  const body = started?.type === 'runStarted' ? started : null;
  return { runId: run.id, startedAt: run.startedAt, digest: body?.flowDigest ?? null, text: body?.flowText ?? null };
}

/** The flow version of the issue's first occurrence against the one its flow's previous run ran. */
async function flowChangeOf(store: HivewatchStore, runId: string): Promise<IssueFlowChange | null> {
  const run = await store.issues.run(runId);
  if (run === null) return null;
  const previous = await store.issues.runBefore(run);
  const first = await versionOf(store, run);
  const before = previous === null ? null : await versionOf(store, previous);
  const changed = before === null ? null : first.digest === null || before.digest === null ? null : first.digest !== before.digest;
  return { flow: run.flow, flowName: run.flowName, first, before, changed };
}

/**
 * The newest occurrence, its envelope as journaled (the errors table keeps its fields, the
 * journal's `errorOccurred` also its causes), and the chain: the envelope, then each cause.
 */
async function latestOf(store: HivewatchStore, fingerprint: string): Promise<IssueDetail['latest']> {
  const newest = (await store.listErrors({ fingerprint, limit: 1 })).errors[0];
  if (!newest) return null;
  const occurrence = errorOccurrence(newest);
  const [event] = await store.getEvents(newest.runId, newest.seq - 1, 1);
  const journaled = event?.type === 'errorOccurred' && event.seq === newest.seq ? event.error : null;
  return { occurrence: journaled ? { ...occurrence, error: journaled } : occurrence, chain: chainOf(journaled ?? occurrence.error) };
}

export async function issueDetail(book: IssueBook, store: HivewatchStore, input: IssueDetailInput): Promise<IssueDetail> {
  const { id, ...scope } = input;
  const issue = await book.get(id, scope);
  const fingerprint = issue.id;
  const latest = await latestOf(store, fingerprint);
  const firstRef = await store.issues.firstOccurrence(fingerprint);
  const activity = activityOf(
    issue,
    await store.issues.log(fingerprint),
    firstRef ? { ref: `${firstRef.runId}#${firstRef.seq}`, at: firstRef.ts } : null,
    await alertDeliveriesAbout(store, fingerprint),
  );
  return {
    issue,
    latest,
    flows: await store.issues.flows(fingerprint),
    origins: [issue.origin],
    activity,
    flowChange: firstRef ? await flowChangeOf(store, firstRef.runId) : null,
    cost: await store.issues.failedRunsCost(fingerprint),
  };
}
