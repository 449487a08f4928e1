import type { IssueState } from '../../store/issues/issue-state.js';
import type { IssueChangeKind, IssueStatus, Occurrences } from '../../store/issues/issues.js';
import type { IssueSubstatus } from '../api-issues.js';

/**
 * The rules of an issue's sub-states and system transitions (pure; docs/triage.md "Issues").
 * Every host applies them to the same log and errors, and keys each transition it finds so that
 * only one host's insert lands.
 */

const HOUR = 3_600_000;
/** An unresolved issue is `new` for its first 72 hours (Sentry's "new" lasts a week; Hivewatch runs are shorter-lived). */
const NEW_FOR_MS = 72 * HOUR;
/** A regression shows as `regressed` for 7 days, then as ongoing (Sentry's default). */
const REGRESSED_FOR_MS = 7 * 24 * HOUR;
/**
 * An escalation (the rate rule's, or an ignore that lapsed into one) shows as `escalating` for 7
 * days, then as ongoing, as Sentry moves escalating issues on (getsentry/sentry#52545).
 */
const ESCALATING_FOR_MS = 7 * 24 * HOUR;
/**
 * New: first seen less than 72 hours ago and nobody has acted on it. Such an issue is `new`, not
 * escalating, whatever its rate: its week is not known yet (a forecast from it would call every
 * young issue's second hour a jump).
 */
export function isNewIssue(state: IssueState, firstSeen: number, now: number): boolean {
  return !state.reviewed && now - firstSeen < NEW_FOR_MS;
}

/**
 * The sub-state of an unresolved issue (docs/triage.md "Status"): escalating while its last hour
 * is over its forecast (`escalating`, which the caller computes only for an issue that is not
 * new), and for 7 days after an `escalating` row; regressed for 7 days after a regression; `new`
 * only while nobody has acted on it and it is young; else ongoing. An issue that was ignored or
 * resolved and came back is never new again (Sentry: ongoing is "marked as reviewed").
 */
export function substatusOf(state: IssueState, firstSeen: number, escalating: boolean, now: number): IssueSubstatus | null {
  if (state.status !== 'unresolved') return null;
  const last = state.last;
  if (escalating || (last?.kind === 'escalating' && now - last.at < ESCALATING_FOR_MS)) return 'escalating';
  if (last?.kind === 'regressed' && now - last.at < REGRESSED_FOR_MS) return 'regressed';
  if (state.reviewed) return 'ongoing';
  return now - firstSeen < NEW_FOR_MS ? 'new' : 'ongoing';
}

/** A system transition a host found due, before its actor and host are added. */
export interface DueTransition {
  kind: IssueChangeKind;
  from: IssueStatus | null;
  to: IssueStatus;
  at: number;
  reason: string;
  cause: string | null;
  dedupeKey: string;
}

export interface RuleInput {
  state: IssueState;
  firstSeen: number;
  /** The last hour is over the forecast, in words with its figures (forecast.ts); null when it is not. */
  escalating: string | null;
  /** Occurrences after the resolve (while resolved) or the ignore (while ignored). */
  since: Occurrences | null;
  now: number;
}

function durationWords(ms: number): string {
  if (ms % (24 * HOUR) === 0 && ms > 2 * 24 * HOUR) return `${ms / (24 * HOUR)}d`;
  if (ms % HOUR === 0) return `${ms / HOUR}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}

/** The one transition due now, or null; applied, the next call may find another (a new issue that also escalates). */
export function dueTransition(input: RuleInput): DueTransition | null {
  const { state, now } = input;
  const fp = state.fingerprint;
  if (!state.announced) {
    return { kind: 'new', from: null, to: 'unresolved', at: input.firstSeen, reason: 'first occurrence', cause: null, dedupeKey: `${fp}:new` };
  }
  if (state.status === 'resolved' && state.resolved && (input.since?.count ?? 0) > 0) {
    // Keyed by the resolve it undoes: whichever occurrence a host saw first, one regression per resolve.
    return {
      kind: 'regressed',
      from: 'resolved',
      to: 'unresolved',
      at: now,
      reason: 'seen again after it was resolved',
      cause: input.since?.first ?? null,
      dedupeKey: `${fp}:regressed:${state.resolved.id}`,
    };
  }
  if (state.status === 'ignored' && state.ignored) {
    const { condition, id, at } = state.ignored;
    const lapse = (kind: IssueChangeKind, reason: string, cause: string | null): DueTransition => ({
      kind,
      from: 'ignored',
      to: 'unresolved',
      at: now,
      reason,
      cause,
      dedupeKey: `${fp}:lapsed:${id}`,
    });
    if (condition.until !== null && now >= condition.until)
      return lapse('reopened', `ignored for ${durationWords(condition.until - at)}: the time is up`, null);
    // The count came true: the issue got worse than the operator would accept, so it comes back
    // escalating and fires the escalation rules (Sentry, getsentry/sentry#108084). Time running out
    // says nothing about the issue: it comes back ongoing.
    if (condition.count !== null && (input.since?.count ?? 0) >= condition.count) {
      return lapse('escalating', `ignored until ${condition.count} more occurrences: they happened`, input.since?.first ?? null);
    }
    if (condition.escalating && input.escalating !== null) return lapse('escalating', `ignored until escalating: it escalates, ${input.escalating}`, null);
    return null;
  }
  // Once per epoch: an `escalating` row (this rule's, or an ignore's lapse) ends it until the next change.
  if (state.status === 'unresolved' && input.escalating !== null && state.last?.kind !== 'escalating') {
    return {
      kind: 'escalating',
      from: 'unresolved',
      to: 'unresolved',
      at: now,
      reason: input.escalating,
      cause: null,
      dedupeKey: `${fp}:escalating:${state.epoch}`,
    };
  }
  return null;
}
