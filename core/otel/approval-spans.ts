import type { Attributes, TelemetryRecord } from './decode.js';
import type { SpanLink } from './genai/spans.js';

/**
 * Claude Code's traces beta times each permission check with a `claude_code.tool.blocked_on_user`
 * span (child of the `claude_code.tool` span that names the tool): its start is when the CLI
 * began to wait for a decision, its end when it had one, and its `decision` / `source` say which
 * and who. The span itself is not a log event, so each is read here into one record of its own
 * (named as the span, timed at its start, its end in `interval`); the parent's attributes come
 * along so the record can name the tool. docs/otel.md "Waiting for approval".
 */

export const BLOCKED_ON_USER_SPAN = 'claude_code.tool.blocked_on_user';

/** A blocked-on-user span as decode.ts saw it: its own attributes, times and parent. */
export interface BlockedSpan {
  attributes: Attributes;
  resource: Attributes;
  parentSpanId: string;
  /** Start, in ms since the epoch, and the start as sent (nanoseconds as text). */
  startMs: number;
  startGiven: string | null;
  /** End in ms; null when the span was sent without one (still open). */
  endMs: number | null;
}

/** The records of the payload's blocked-on-user spans, each with its parent tool span's attributes when the payload has it. */
export function blockedOnUserRecords(spans: readonly BlockedSpan[], links: ReadonlyMap<string, SpanLink>): TelemetryRecord[] {
  return spans.map((span) => ({
    name: BLOCKED_ON_USER_SPAN,
    timeMs: span.startMs,
    timeGiven: span.startGiven,
    timeField: 'startTimeUnixNano',
    attributes: span.attributes,
    resource: span.resource,
    signal: 'traces',
    body: null,
    interval: { startMs: span.startMs, endMs: span.endMs },
    parentAttributes: links.get(span.parentSpanId)?.attributes ?? {},
  }));
}
