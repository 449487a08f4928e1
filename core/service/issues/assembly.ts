import type { IssueState } from '../../store/issues/issue-state.js';
import type { ErrorGroup } from '../../store/index.js';
import type { IssueFacts } from '../../store/issues/issues.js';
import type { Issue, IssueEscalation, IssuePeriod } from '../api-issues.js';
import { isNewIssue, substatusOf } from './rules.js';

/**
 * An issue as the API shows it, from its group, its folded log, its facts, its period counts and
 * its forecast, with its status in words (`why`). Pure: the book (book.ts) reads the parts.
 */

const HOUR = 3_600_000;

export const issueTitle = (group: Pick<ErrorGroup, 'code' | 'template'>): string => `${group.code} · ${group.template}`;

export interface IssueParts {
  group: ErrorGroup;
  state: IssueState;
  facts: IssueFacts | undefined;
  period: IssuePeriod;
  escalation: IssueEscalation;
  now: number;
}

/** The last hour is over the forecast and the issue is past being new: it escalates by its rate. */
export function escalatesByRate(parts: Pick<IssueParts, 'group' | 'state' | 'escalation' | 'now'>): boolean {
  return parts.escalation.over && !isNewIssue(parts.state, parts.group.firstSeen, parts.now);
}

const utc = (ms: number): string => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

function ignoreWords(condition: NonNullable<IssueState['ignored']>['condition']): string {
  if (condition.until !== null) return `ignored until ${utc(condition.until)}`;
  if (condition.count !== null) return `ignored until ${condition.count} more occurrence${condition.count === 1 ? '' : 's'}`;
  if (condition.escalating) return 'ignored until it escalates';
  return 'ignored until someone reopens it';
}

function forecastWords(escalation: IssueEscalation): string {
  const events = `${escalation.lastHour} event${escalation.lastHour === 1 ? '' : 's'} in the last hour`;
  return escalation.forecast === null ? events : `${events}, forecast ${escalation.forecast}`;
}

/** The status and sub-state in words, with the figures that made it so. */
function issueWhy(issue: Pick<Issue, 'status' | 'substatus' | 'escalation' | 'changedBy' | 'reason'>, state: IssueState, byRate: boolean): string {
  const by = issue.changedBy ? ` by ${issue.changedBy}` : '';
  const reason = issue.reason ? `: ${issue.reason}` : '';
  if (issue.status === 'resolved') return `resolved${by}${reason}`;
  if (issue.status === 'ignored') return `${state.ignored ? ignoreWords(state.ignored.condition) : 'ignored'}${by}`;
  switch (issue.substatus) {
    case 'escalating':
      return byRate ? `escalating: ${forecastWords(issue.escalation)}` : `escalating${reason}`;
    case 'regressed':
      return `regressed: seen again after it was resolved; ${forecastWords(issue.escalation)}`;
    case 'new':
      return `new: first seen less than 72 hours ago and nobody has acted on it; ${forecastWords(issue.escalation)}`;
    default:
      return `ongoing: ${state.reviewed ? `reviewed (last changed${by})` : 'first seen more than 72 hours ago'}; ${forecastWords(issue.escalation)}`;
  }
}

export function toIssue(parts: IssueParts): Issue {
  const { group, state, facts, now } = parts;
  const byRate = escalatesByRate(parts);
  // The `new` row is the issue's birth, not a change an operator made.
  const last = state.last && state.last.kind !== 'new' ? state.last : null;
  const base = {
    id: group.fingerprint,
    title: issueTitle(group),
    code: group.code,
    category: group.category,
    origin: group.origin,
    lastMessage: group.lastMessage,
    culprit: null,
    status: state.status,
    substatus: substatusOf(state, group.firstSeen, byRate, now),
    ignore: state.ignored?.condition ?? null,
    firstSeen: group.firstSeen,
    lastSeen: group.lastSeen,
    occurrences: group.count,
    failures: facts?.failures ?? 0,
    runs: facts?.runs ?? 0,
    flows: facts?.flows ?? 0,
    period: parts.period,
    escalation: parts.escalation,
    trend: [],
    trendStart: Math.floor(now / HOUR) * HOUR,
    trendBucketMs: HOUR,
    trendPartial: true,
    changedAt: last?.at ?? null,
    changedBy: last?.by ?? null,
    reason: last?.reason ?? null,
  };
  return { ...base, why: issueWhy(base, state, byRate) };
}
