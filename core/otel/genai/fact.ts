import type { TokenUsage } from '../../base/usage.js';
import { MAX_AGENT_CHARS } from '../receive/bounds.js';
import { own, type AttributeValue, type TelemetryRecord } from '../receive/decode.js';
import { genAiOperationOf, MODEL_CALLS, SDK_CALL, type GenAiOperation } from './operation.js';
import type { SpanFacts } from './spans.js';
import { Bounded, num, parentOf, safe, str, type Fact, type FactBody, type SessionRef } from '../mapping.js';

/**
 * What a span following the OpenTelemetry GenAI semantic conventions means to Hivewatch (pure;
 * docs/otel.md "OpenTelemetry GenAI agents"): the app that sent it is the agent, a conversation
 * (else a trace) its session, an `invoke_agent` span (else an agent name, else a trace) a task,
 * and every model call (`chat` and the chat-like operations) or tool call (`execute_tool`) an
 * attempt of that task, failed when the span's status is an error or it carries `error.type`.
 */

/** Operations the conventions define that are kept as known events: they are no attempt of anything (yet). */
const KEPT_OPERATIONS = new Set(['create_agent', 'invoke_workflow']);
const MAPPED = [...MODEL_CALLS, 'execute_tool', 'invoke_agent', ...KEPT_OPERATIONS].join(', ');
/** The first of `keys` the span carries as text. */
const firstText = (record: TelemetryRecord, ...keys: string[]): string | null =>
  keys.map((key) => str(own(record.attributes, key))).find((v) => v !== null) ?? null;
/** The largest token count taken as sent (a bound: larger is noted and ignored). */
const MAX_TOKENS = 1e12;

export function genAiSessionOf(record: TelemetryRecord): SessionRef {
  const bounded = new Bounded();
  const span = record.span as SpanFacts;
  const service = str(own(record.resource, 'service.name')) ?? 'unknown';
  const agent = bounded.id(safe(service), 'resource.service.name', MAX_AGENT_CHARS) as string;
  const given = span.conversationId ?? (span.traceId !== '' ? `trace-${span.traceId}` : null);
  const sessionId = bounded.id(given ?? 'unknown', span.conversationId !== null ? 'attributes.gen_ai.conversation.id' : 'span.traceId') as string;
  const version = str(own(record.resource, 'service.version'));
  const source = bounded.text(version ? `${service} ${version}` : service, 'resource.service.name', 200) as string;
  const parent = parentOf(record, bounded);
  return { agent, origin: `runtime:${agent}`, sessionId, source, parent, adjustments: bounded.adjustments, ...(given === null ? { anonymous: true } : {}) };
}

/** The first of `keys` the span carries as a token count (the current name first, then the older one). */
function tokens(record: TelemetryRecord, bounded: Bounded, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = own(record.attributes, key);
    if (value === undefined) continue;
    return bounded.integer(num(value), `attributes.${key}`, 0, MAX_TOKENS) ?? undefined;
  }
  return undefined;
}

/**
 * The conventions count cached input inside `gen_ai.usage.input_tokens`; TokenUsage's `inputTokens` is the
 * input not served from or written to the cache (docs/presets.md "Tokens and cost"), so the cache counts are
 * taken off it and the four kinds add up without counting a token twice.
 */
function usageOf(record: TelemetryRecord, bounded: Bounded): TokenUsage | undefined {
  const input = tokens(record, bounded, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  // The AI SDK counts cached input inside its input tokens too (`ai.usage.inputTokenDetails.*`).
  const cacheReadTokens = tokens(record, bounded, 'gen_ai.usage.cache_read.input_tokens', 'ai.usage.inputTokenDetails.cacheReadTokens');
  const cacheWriteTokens = tokens(
    record,
    bounded,
    'gen_ai.usage.cache_creation.input_tokens',
    'gen_ai.usage.cache_write.input_tokens',
    'ai.usage.inputTokenDetails.cacheWriteTokens',
  );
  const usage: TokenUsage = {
    inputTokens: input === undefined ? undefined : Math.max(0, input - (cacheReadTokens ?? 0) - (cacheWriteTokens ?? 0)),
    outputTokens: tokens(record, bounded, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'),
    cacheReadTokens,
    cacheWriteTokens,
    source: 'telemetry',
  };
  const reported = Object.entries(usage).filter(([key, value]) => key !== 'source' && value !== undefined);
  return reported.length > 0 ? (Object.fromEntries([...reported, ['source', 'telemetry']]) as unknown as TokenUsage) : undefined;
}

/** The HTTP status of a failed call: `error.type` when it is one (the conventions' advice for HTTP errors), the response's status, else the leading one of the status message (OpenAI's SDK: `429 Rate limit reached…`). */
function statusOf(record: TelemetryRecord, errorType: string | null, bounded: Bounded): number | null {
  const fromType = errorType !== null && /^[1-5]\d\d$/.test(errorType) ? Number(errorType) : null;
  if (fromType !== null) return fromType;
  const given = own(record.attributes, 'http.response.status_code');
  if (given !== undefined) return bounded.integer(num(given), 'attributes.http.response.status_code', 100, 599);
  const leading = /^([1-5]\d\d)\b/.exec(record.span?.statusMessage ?? '');
  return leading ? Number(leading[1]) : null;
}

/**
 * Why a failed span failed, as one line the classifier reads: `RateLimitError: 429 Rate limit reached…`.
 * The type is `error.type`, else the span's `exception` event's (the AI SDK records `AI_APICallError` there).
 */
function failureOf(record: TelemetryRecord, bounded: Bounded): { status: number | null; message: string } | null {
  const span = record.span as SpanFacts;
  const errorType = str(own(record.attributes, 'error.type'));
  if (span.statusCode !== 2 && errorType === null) return null;
  const statusMessage = bounded.text(span.statusMessage, 'span.status.message');
  const type = errorType === '_OTHER' ? null : (errorType ?? span.exceptionType);
  const parts = [type, statusMessage].filter((p): p is string => p !== null && p !== '');
  return { status: statusOf(record, errorType, bounded), message: parts.join(': ') || 'the span ended with an error status and no message' };
}

/** Why a span that names a GenAI operation cannot be read as one; null when it can. */
function malformed(span: SpanFacts, operation: GenAiOperation): string | null {
  if (operation.from === 'none')
    return 'the span names a GenAI provider or system but no operation (no gen_ai.operation.name, ai.operationId, "{operation} {model}" span name or llm.request.type)';
  if (typeof operation.value !== 'string') return `gen_ai.operation.name is not text: ${JSON.stringify(operation.value as AttributeValue)}`;
  if (!Number.isFinite(span.startMs) || !Number.isFinite(span.endMs)) return 'the span has no start or end time: its duration is unknown';
  if (span.endMs < span.startMs) return 'the span ends before it starts';
  return null;
}

function genAiFactBody(record: TelemetryRecord, bounded: Bounded): FactBody & { usage?: TokenUsage } {
  const span = record.span as SpanFacts;
  const promptId = bounded.id(span.task?.key ?? null, 'task');
  const operation = genAiOperationOf(span.name, record.attributes);
  const reason = malformed(span, operation);
  if (reason !== null) return { kind: 'other', promptId, known: false, reason };
  const op = operation.value as string;
  const durationMs = bounded.duration(span.endMs - span.startMs, 'span.duration');
  const failure = failureOf(record, bounded);
  if (MODEL_CALLS.has(op)) {
    const usage = usageOf(record, bounded);
    const model = bounded.text(
      firstText(record, 'gen_ai.response.model', 'gen_ai.request.model', 'ai.response.model', 'ai.model.id'),
      'attributes.gen_ai.request.model',
      200,
    );
    const body = failure
      ? ({ kind: 'apiError', promptId, status: failure.status, message: failure.message, reportedAttempt: null, durationMs, model, stream: false } as const)
      : ({ kind: 'apiRequest', promptId, durationMs } as const);
    return { ...body, ...(usage ? { usage } : {}) };
  }
  if (op === 'execute_tool') {
    const tool = bounded.text(firstText(record, 'gen_ai.tool.name', 'ai.toolCall.name') ?? span.name, 'attributes.gen_ai.tool.name', 200) ?? 'unknown';
    return { kind: 'toolCall', promptId, tool, durationMs, failure: failure?.message ?? null };
  }
  // Only an OK status clears what failed under it: UNSET is what instrumentation leaves on success and on
  // failures it does not see (the OpenTelemetry trace API, "Set Status"), so it says nothing either way.
  if (op === 'invoke_agent' || op === SDK_CALL) return { kind: 'agentEnded', promptId, failure, ok: span.statusCode === 1 };
  if (KEPT_OPERATIONS.has(op)) return { kind: 'other', promptId, known: true };
  return { kind: 'other', promptId, known: false, reason: `${operation.from} ${JSON.stringify(op.slice(0, 64))} is none Hivewatch reads (${MAPPED})` };
}

/** A GenAI span's meaning, with the task it opens named after its agent or trace. */
export function genAiFactOf(record: TelemetryRecord): Fact {
  const bounded = new Bounded();
  const body = genAiFactBody(record, bounded);
  const taskName = bounded.text(record.span?.task?.label ?? null, 'task name', 200);
  return { ...body, adjustments: bounded.adjustments, ...(taskName ? { taskName } : {}) };
}
