import { isAgentSpan, isVerdictSpan } from './operation.js';

/**
 * Which spans of a traces payload follow the OpenTelemetry GenAI semantic conventions, and what
 * a payload tells about each beyond the span itself (docs/otel.md "OpenTelemetry GenAI agents"):
 * the conversation its trace belongs to, and the task it is part of (its nearest `invoke_agent`
 * span). Spans end child first and exporters batch them by scope, so the records are put in the
 * order their spans ended.
 */

/** A span's own facts, carried by the record made of it. */
export interface SpanFacts {
  /** The span's name (`chat gpt-4o-mini`, `invoke_agent planner`). */
  name: string;
  /** Hex; '' when the span had none. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** Ms since the epoch; NaN when the span did not send the time. */
  startMs: number;
  endMs: number;
  /**
   * The same times to the microsecond (NaN when not sent), to order spans: sibling spans of an SDK
   * often end within the same millisecond (the AI SDK's tool call and the model call before it).
   */
  startPreciseMs: number;
  endPreciseMs: number;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string | null;
  /** The `exception.type` of the span's first `exception` event (the AI SDK's `AI_APICallError`), else null. */
  exceptionType: string | null;
  /** The span's `gen_ai.conversation.id`, else the one other spans of its trace in the payload carry (one only). */
  conversationId: string | null;
  /** The task it belongs to: the nearest `invoke_agent` span, else its agent's name, else its trace. */
  task: { key: string; label: string } | null;
}

/** Attributes as decode.ts reads them (declared here by shape: decode.ts imports this file). */
type Attributes = Readonly<Record<string, unknown>>;

/** What this file reads of a telemetry record (decode.ts's TelemetryRecord has it). */
interface SpanRecord {
  timeMs: number;
  attributes: Attributes;
  span?: SpanFacts;
}

/** A span of the payload, GenAI or not: the links `resolveGenAiSpans` walks to find a span's agent. */
export interface SpanLink {
  name: string;
  parentSpanId: string;
  attributes: Attributes;
}

const own = (attrs: Attributes, key: string): unknown => (Object.prototype.hasOwnProperty.call(attrs, key) ? attrs[key] : undefined);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Whether a span is a GenAI span: it names a GenAI operation, provider or system, or it is the
 * Vercel AI SDK's (`ai.operationId`: its calls around the model calls and its tool calls carry no
 * `gen_ai.*` attribute at all). Claude Code's
 * and Codex's own spans carry `gen_ai.*` attributes too, but their log events are what
 * Hivewatch maps for them (docs/otel.md "Mapping"): reading their spans as well would count
 * every request twice.
 */
export function isGenAiSpan(name: string, attrs: Attributes, resource: Attributes): boolean {
  const service = text(own(resource, 'service.name')) ?? '';
  if (name.startsWith('claude_code.') || name.startsWith('codex.') || service.startsWith('claude') || service.startsWith('codex')) return false;
  const aiSdk = own(attrs, 'ai.operationId');
  if (typeof aiSdk === 'string' && aiSdk.startsWith('ai.')) return true;
  return own(attrs, 'gen_ai.operation.name') !== undefined || own(attrs, 'gen_ai.provider.name') !== undefined || own(attrs, 'gen_ai.system') !== undefined;
}

/** At most this many parents are followed looking for a span's agent (a payload's spans could loop). */
const MAX_ANCESTRY = 64;

/** The nearest `invoke_agent` span at or above `spanId` among the payload's spans. */
function agentSpanOf(spanId: string, links: ReadonlyMap<string, SpanLink>): { spanId: string; attributes: Attributes } | null {
  let id = spanId;
  for (let depth = 0; depth < MAX_ANCESTRY && id !== ''; depth += 1) {
    const link = links.get(id);
    if (!link) return null;
    if (isAgentSpan(link.name, link.attributes)) return { spanId: id, attributes: link.attributes };
    id = link.parentSpanId;
  }
  return null;
}

function taskOf(span: SpanFacts, attrs: Attributes, links: ReadonlyMap<string, SpanLink>): { key: string; label: string } {
  const agentSpan = agentSpanOf(span.spanId, links);
  if (agentSpan) {
    const name = text(own(agentSpan.attributes, 'gen_ai.agent.name'));
    return { key: `agent-${agentSpan.spanId}`, label: name ? `agent ${name}` : `agent ${agentSpan.spanId.slice(0, 8)}` };
  }
  const name = text(own(attrs, 'gen_ai.agent.name'));
  if (name) return { key: `agent-${name}`, label: `agent ${name}` };
  return { key: `trace-${span.traceId || 'none'}`, label: `trace ${span.traceId.slice(0, 8) || '(none)'}` };
}

/** The conversation of each trace, when its GenAI spans in the payload name exactly one. */
function conversationsOf(records: readonly SpanRecord[]): Map<string, string | null> {
  const byTrace = new Map<string, string | null>();
  for (const record of records) {
    const id = text(own(record.attributes, 'gen_ai.conversation.id'));
    const traceId = record.span?.traceId ?? '';
    if (id === null || traceId === '') continue;
    const seen = byTrace.get(traceId);
    // Two conversations in one trace: neither is taken for the spans that name none.
    byTrace.set(traceId, seen === undefined || seen === id ? id : null);
  }
  return byTrace;
}

/**
 * When each verdict span (an `invoke_agent`, an SDK's call around its model calls) is placed: after
 * every span of the payload under it. SDKs time span ends on a monotonic clock anchored at the
 * start, so a parent's end can read a few ms before its last child's (seen with
 * @opentelemetry/sdk-trace 3.1), and a verdict must follow what it judges.
 */
function verdictEnds<R extends SpanRecord>(records: readonly R[], links: ReadonlyMap<string, SpanLink>, endOf: (r: R) => number): Map<string, number> {
  const verdicts = new Set(records.filter((r) => r.span && isVerdictSpan(r.span.name, r.attributes)).map((r) => (r.span as SpanFacts).spanId));
  const lastEnd = new Map<string, number>();
  for (const record of records) {
    let id = record.span?.parentSpanId ?? '';
    for (let depth = 0; depth < MAX_ANCESTRY && id !== ''; depth += 1) {
      if (verdicts.has(id)) lastEnd.set(id, Math.max(lastEnd.get(id) ?? -Infinity, endOf(record)));
      id = links.get(id)?.parentSpanId ?? '';
    }
  }
  return lastEnd;
}

/** The GenAI span records of one payload, each with its conversation and task, in the order their spans ended. */
export function resolveGenAiSpans<R extends SpanRecord>(records: readonly R[], links: ReadonlyMap<string, SpanLink>): R[] {
  const conversations = conversationsOf(records);
  const resolved = records.map((record) => {
    const span = record.span as SpanFacts;
    const conversationId = text(own(record.attributes, 'gen_ai.conversation.id')) ?? conversations.get(span.traceId) ?? null;
    return { ...record, span: { ...span, conversationId, task: taskOf(span, record.attributes, links) } };
  });
  // Child spans end before their parents; a tie on the end goes to the one that started later (the child).
  const finite = (...ms: (number | undefined)[]): number => ms.find((n): n is number => n !== undefined && Number.isFinite(n)) ?? 0;
  const lastEnd = verdictEnds(resolved, links, (r) => finite(r.span.endPreciseMs, r.span.endMs, r.timeMs));
  const endOf = (r: R): number => Math.max(finite(r.span?.endPreciseMs, r.span?.endMs, r.timeMs), lastEnd.get(r.span?.spanId ?? '') ?? -Infinity);
  const startOf = (r: R): number => finite(r.span?.startPreciseMs, r.span?.startMs, r.timeMs);
  return resolved.sort((a, b) => endOf(a) - endOf(b) || startOf(b) - startOf(a));
}
