import { cleanText } from './bounds.js';
import { BLOCKED_ON_USER_SPAN } from '../approval/approval-spans.js';
import { isGenAiSpan, resolveGenAiSpans, type SpanFacts, type SpanLink } from '../genai/spans.js';
import { ExportLogsServiceRequest, ExportTraceServiceRequest, TO_OBJECT_OPTIONS } from './schema.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';

/**
 * OTLP/HTTP request bodies (logs and traces; `http/json` and `http/protobuf`) decoded into one
 * flat shape: a telemetry record is a log record, or an event of a span (Codex's trace exporter
 * puts its `codex.*` events there), with the resource's attributes beside its own.
 */

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export interface TelemetryRecord {
  /** The event's name: of the log record's `event_name`, `event.name` attribute and body, the first qualified one (`claude_code.x`). */
  name: string;
  /**
   * Milliseconds since the epoch (the record's time, else its observed time; 0 when neither is
   * set; NaN when it has more nanoseconds than a fixed64 holds). Not checked for sanity here:
   * ingest does that against the time the payload arrived (bounds.ts saneTime).
   */
  timeMs: number;
  /** The time as sent (nanoseconds, as text), null when none was; what an adjustment quotes. */
  timeGiven: string | null;
  /** The field the time came from (`timeUnixNano`, `observedTimeUnixNano`, `startTimeUnixNano`). */
  timeField: string;
  attributes: Attributes;
  resource: Attributes;
  /** `logs`, `traces`, or `metrics` (a data point Hivewatch reads, metrics/codex.ts). */
  signal: OtlpSignal;
  /** The log body when it is text and not the name itself. */
  body: string | null;
  /** A span event's span: its own attributes (an event's attribute of the same key hides the span's in `attributes`). */
  spanAttributes?: Attributes;
  /** Set on the record made of a whole GenAI span (genai-span.ts): its ids, times and status. */
  span?: SpanFacts;
  /** Set on the record of a span read as a whole for its times (approval-spans.ts): its start, and its end unless still open. */
  interval?: { startMs: number; endMs: number | null };
  /** The attributes of the span's parent, when the payload had it (approval-spans.ts). */
  parentAttributes?: Readonly<Record<string, unknown>>;
}

export type OtlpSignal = 'logs' | 'traces' | 'metrics';
export type OtlpEncoding = 'json' | 'protobuf';

/** A payload that is not an OTLP request of its signal: the receiver answers 400 with `message`. */
export class OtlpDecodeError extends HivewatchError {
  constructor(message: string) {
    super('USER_INVALID_PAYLOAD', { message });
    this.name = 'OtlpDecodeError';
  }
}

export type Obj = Record<string, unknown>;

/**
 * How deep a JSON body may nest: an OTLP request needs about 12 levels, and 4 more per nested
 * attribute value (kvlistValue → values → item → value). The same as protobufjs' own recursion
 * limit for the protobuf encoding. Checked without recursion, before any recursive walk.
 */
const MAX_JSON_DEPTH = 100;
/** How deep attribute values (kvlistValue, arrayValue) may nest inside one another. */
const MAX_ATTRIBUTE_DEPTH = 16;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${where} must be an array`);
  return value;
}

function hex(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return Buffer.from(value as number[]).toString('hex');
  return '';
}

/** An AnyValue (JSON: camelCase keys, 64-bit integers as strings or numbers) as a plain value. */
function anyValue(value: unknown, where = 'value', depth = 1): AttributeValue {
  if (!isObj(value)) return null;
  if (depth > MAX_ATTRIBUTE_DEPTH) throw new OtlpDecodeError(`${where.slice(0, 200)}: attribute values nest deeper than ${MAX_ATTRIBUTE_DEPTH} levels`);
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return value.boolValue === true;
  if ('intValue' in value) {
    const n = Number(value.intValue);
    if (!Number.isFinite(n)) throw new OtlpDecodeError(`${where}: intValue ${String(value.intValue)} is not an integer`);
    return n;
  }
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) {
    const arr = isObj(value.arrayValue) ? value.arrayValue.values : undefined;
    return list(arr, `${where}.arrayValue.values`).map((v, i) => anyValue(v, `${where}[${i}]`, depth + 1));
  }
  if ('kvlistValue' in value) {
    const kv = isObj(value.kvlistValue) ? value.kvlistValue.values : undefined;
    return attributes(kv, `${where}.kvlistValue`, depth + 1);
  }
  if ('bytesValue' in value) return hex(value.bytesValue);
  return null;
}

/**
 * Key/value pairs as an object. Keys are data: `__proto__`, `constructor` and `prototype` become
 * own properties like any other key (defineProperty, never assignment, which for `__proto__`
 * would set the object's prototype and hide the values from the journal while lookups saw them).
 */
export function attributes(value: unknown, where: string, depth = 0): Attributes {
  const out: Attributes = {};
  for (const [i, kv] of list(value, where).entries()) {
    if (!isObj(kv) || typeof kv.key !== 'string') throw new OtlpDecodeError(`${where.slice(0, 200)}[${i}] must be a {key, value} object`);
    const item = anyValue(kv.value, `${where}.${kv.key.slice(0, 64)}`, depth + 1);
    Object.defineProperty(out, kv.key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The value of an own property only (never one inherited from Object.prototype). */
export function own(attrs: Attributes, key: string): AttributeValue | undefined {
  return Object.prototype.hasOwnProperty.call(attrs, key) ? attrs[key] : undefined;
}

/** The largest fixed64 (OTLP's type for times): 2^64 − 1 nanoseconds, in the year 2554. */
const MAX_FIXED64 = 18_446_744_073_709_551_615n;

export interface Time {
  ms: number;
  given: string | null;
  field: string;
}

/** A time field in nanoseconds, as text or a JSON number; `given` null when absent or zero (OTLP's "unset"). */
export function timeOf(value: unknown, field: string): Time {
  if (value === undefined || value === null || value === '') return { ms: 0, given: null, field };
  const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isInteger(value) && value >= 0 ? BigInt(value).toString() : '';
  if (!/^\d+$/.test(text)) {
    const shown = JSON.stringify(value) ?? String(value);
    throw new OtlpDecodeError(`a time must be an unsigned integer of nanoseconds, got ${shown.length > 64 ? `${shown.slice(0, 64)}…` : shown}`);
  }
  // Past 20 digits it is past any fixed64; not parsed (a megabyte of digits would be slow to).
  const nanos = text.length <= 20 ? BigInt(text) : null;
  if (nanos === 0n) return { ms: 0, given: null, field };
  if (nanos === null || nanos > MAX_FIXED64) return { ms: Number.NaN, given: text, field };
  return { ms: Number(nanos / 1_000_000n), given: text, field };
}

/** The first time that is set (not absent, not zero), in the order given. */
export function firstTime(...times: Time[]): Time {
  return times.find((t) => t.given !== null) ?? (times[0] as Time);
}

/** An event name is a label: at most MAX_NAME_CHARS of clean text. */
const MAX_NAME_CHARS = 200;
const boundedName = (name: string): string => (name.length <= MAX_NAME_CHARS ? cleanText(name) : `${cleanText(name.slice(0, MAX_NAME_CHARS))}…`);

function nameOf(eventName: unknown, attrs: Attributes, body: AttributeValue): string {
  const named = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_NAME_CHARS && /^[A-Za-z0-9_.-]+$/.test(v);
  const candidates = [eventName, own(attrs, 'event.name'), body].filter(named);
  // Claude Code's `event.name` is the bare `api_error`, its body the full `claude_code.api_error`: the qualified one wins.
  return candidates.find((c) => c.includes('.')) ?? candidates[0] ?? '';
}

function logRecords(request: Obj): TelemetryRecord[] {
  const out: TelemetryRecord[] = [];
  for (const [r, rl] of list(request.resourceLogs, 'resourceLogs').entries()) {
    if (!isObj(rl)) throw new OtlpDecodeError(`resourceLogs[${r}] must be an object`);
    const resource = attributes(isObj(rl.resource) ? rl.resource.attributes : undefined, `resourceLogs[${r}].resource.attributes`);
    for (const [s, sl] of list(rl.scopeLogs, `resourceLogs[${r}].scopeLogs`).entries()) {
      if (!isObj(sl)) throw new OtlpDecodeError(`resourceLogs[${r}].scopeLogs[${s}] must be an object`);
      for (const [l, lr] of list(sl.logRecords, `resourceLogs[${r}].scopeLogs[${s}].logRecords`).entries()) {
        const where = `resourceLogs[${r}].scopeLogs[${s}].logRecords[${l}]`;
        if (!isObj(lr)) throw new OtlpDecodeError(`${where} must be an object`);
        const attrs = attributes(lr.attributes, `${where}.attributes`);
        const body = anyValue(lr.body, `${where}.body`);
        const name = nameOf(lr.eventName, attrs, body);
        const time = firstTime(timeOf(lr.timeUnixNano, 'timeUnixNano'), timeOf(lr.observedTimeUnixNano, 'observedTimeUnixNano'));
        out.push({
          name,
          timeMs: time.ms,
          timeGiven: time.given,
          timeField: time.field,
          attributes: attrs,
          resource,
          signal: 'logs',
          body: typeof body === 'string' && body !== name ? body : null,
        });
      }
    }
  }
  return out;
}

/**
 * A span's ids, name and status (OTLP/JSON's status code is a number; an enum name is read too).
 * Lenient: a status of the wrong shape reads as unset, never refusing a payload that was taken
 * before spans were read (genai.ts says when a GenAI span cannot be read).
 */
function spanFactsOf(span: Obj): SpanFacts {
  const status = isObj(span.status) ? span.status : {};
  const code = status.code === 2 || status.code === 'STATUS_CODE_ERROR' ? 2 : status.code === 1 || status.code === 'STATUS_CODE_OK' ? 1 : 0;
  return {
    name: typeof span.name === 'string' ? boundedName(span.name) : '',
    traceId: hex(span.traceId).toLowerCase(),
    spanId: hex(span.spanId).toLowerCase(),
    parentSpanId: hex(span.parentSpanId).toLowerCase(),
    startMs: 0,
    endMs: 0,
    startPreciseMs: Number.NaN,
    endPreciseMs: Number.NaN,
    statusCode: code,
    statusMessage: typeof status.message === 'string' && status.message !== '' ? status.message : null,
    exceptionType: null,
    conversationId: null,
    task: null,
  };
}

/** A time to the microsecond, in ms (a double holds it exactly until the year 2255); NaN when not sent or not sane. */
function preciseMs(time: Time): number {
  if (time.given === null || !Number.isFinite(time.ms)) return Number.NaN;
  return Number(BigInt(time.given) / 1000n) / 1000;
}

/** The record of a whole GenAI span: timed at its end (when its outcome is known), its attributes its own. */
function genAiRecord(span: Obj, facts: SpanFacts, attrs: Attributes, resource: Attributes): TelemetryRecord {
  const start = timeOf(span.startTimeUnixNano, 'startTimeUnixNano');
  const end = timeOf(span.endTimeUnixNano, 'endTimeUnixNano');
  const at = firstTime(end, start);
  return {
    name: facts.name,
    timeMs: at.ms,
    timeGiven: at.given,
    timeField: at.field,
    attributes: attrs,
    resource,
    signal: 'traces',
    body: null,
    // NaN: the time was not sent (genai.ts keeps such a span as an unknown event, with the reason).
    span: {
      ...facts,
      startMs: start.given === null ? Number.NaN : start.ms,
      endMs: end.given === null ? Number.NaN : end.ms,
      startPreciseMs: preciseMs(start),
      endPreciseMs: preciseMs(end),
    },
  };
}

/** A blocked-on-user span as read so far (approval-spans.ts): its parent's attributes come once the payload's spans are all seen. */
interface BlockedSpan {
  record: TelemetryRecord;
  parentSpanId: string;
}

/** The record of a blocked-on-user span: timed at its start, its end in `interval` (null: sent without one, still open). */
function blockedSpan(span: Obj, facts: SpanFacts, attributes: Attributes, resource: Attributes): BlockedSpan {
  const start = timeOf(span.startTimeUnixNano, 'startTimeUnixNano');
  const end = timeOf(span.endTimeUnixNano, 'endTimeUnixNano');
  const endMs = end.given === null || !Number.isFinite(end.ms) || end.ms < start.ms ? null : end.ms;
  const record: TelemetryRecord = {
    name: BLOCKED_ON_USER_SPAN,
    timeMs: start.ms,
    timeGiven: start.given,
    timeField: 'startTimeUnixNano',
    attributes,
    resource,
    signal: 'traces',
    body: null,
    interval: { startMs: start.ms, endMs },
  };
  return { record, parentSpanId: facts.parentSpanId };
}

function spanEvents(request: Obj): TelemetryRecord[] {
  const out: TelemetryRecord[] = [];
  const genAi: TelemetryRecord[] = [];
  const links = new Map<string, SpanLink>();
  const blocked: BlockedSpan[] = [];
  for (const [r, rs] of list(request.resourceSpans, 'resourceSpans').entries()) {
    if (!isObj(rs)) throw new OtlpDecodeError(`resourceSpans[${r}] must be an object`);
    const resource = attributes(isObj(rs.resource) ? rs.resource.attributes : undefined, `resourceSpans[${r}].resource.attributes`);
    for (const [s, ss] of list(rs.scopeSpans, `resourceSpans[${r}].scopeSpans`).entries()) {
      if (!isObj(ss)) throw new OtlpDecodeError(`resourceSpans[${r}].scopeSpans[${s}] must be an object`);
      for (const [p, span] of list(ss.spans, `resourceSpans[${r}].scopeSpans[${s}].spans`).entries()) {
        const where = `resourceSpans[${r}].scopeSpans[${s}].spans[${p}]`;
        if (!isObj(span)) throw new OtlpDecodeError(`${where} must be an object`);
        const spanAttrs = attributes(span.attributes, `${where}.attributes`);
        const facts = spanFactsOf(span);
        links.set(facts.spanId, { name: facts.name, parentSpanId: facts.parentSpanId, attributes: spanAttrs });
        const genAiSpan = isGenAiSpan(facts.name, spanAttrs, resource);
        for (const [e, event] of list(span.events, `${where}.events`).entries()) {
          if (!isObj(event)) throw new OtlpDecodeError(`${where}.events[${e}] must be an object`);
          const eventAttrs = attributes(event.attributes, `${where}.events[${e}].attributes`);
          const thrown = own(eventAttrs, 'exception.type');
          if (event.name === 'exception' && facts.exceptionType === null && typeof thrown === 'string' && thrown !== '')
            facts.exceptionType = boundedName(thrown);
          // Spread copies own properties as data (a `__proto__` key stays a key).
          const attrs = { ...spanAttrs, ...eventAttrs };
          const time = firstTime(timeOf(event.timeUnixNano, 'timeUnixNano'), timeOf(span.startTimeUnixNano, 'startTimeUnixNano'));
          out.push({
            name: typeof event.name === 'string' ? boundedName(event.name) : '',
            timeMs: time.ms,
            timeGiven: time.given,
            timeField: time.field,
            attributes: attrs,
            resource,
            signal: 'traces',
            body: null,
            spanAttributes: spanAttrs,
          });
        }
        if (genAiSpan) genAi.push(genAiRecord(span, facts, spanAttrs, resource));
        if (facts.name === BLOCKED_ON_USER_SPAN) blocked.push(blockedSpan(span, facts, spanAttrs, resource));
      }
    }
  }
  const blockedRecords = blocked.map((b) => ({ ...b.record, parentAttributes: links.get(b.parentSpanId)?.attributes ?? {} }));
  return [...out, ...blockedRecords, ...resolveGenAiSpans(genAi, links)];
}

export function parseJson(body: Buffer): Obj {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new OtlpDecodeError(`the body is not JSON: ${(error as Error).message}`);
  }
  if (!isObj(value)) throw new OtlpDecodeError('the body must be a JSON object (an OTLP export request)');
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    throw new OtlpDecodeError(`the JSON nests deeper than ${MAX_JSON_DEPTH} levels (an OTLP request needs about 12, and 4 more per nested attribute value)`);
  }
  return value;
}

/** Whether a parsed JSON value nests deeper than `limit` (an explicit stack: no recursion to overflow). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > limit) return true;
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: next.depth + 1 });
    }
  }
  return false;
}

function parseProtobuf(signal: Exclude<OtlpSignal, 'metrics'>, body: Buffer): Obj {
  const type = signal === 'logs' ? ExportLogsServiceRequest : ExportTraceServiceRequest;
  try {
    return type.toObject(type.decode(body), TO_OBJECT_OPTIONS) as Obj;
  } catch (error) {
    throw new OtlpDecodeError(`the body is not a protobuf ${type.name}: ${(error as Error).message}`);
  }
}

/** Decodes one OTLP/HTTP logs or traces request body (metrics: metrics/decode.ts). Throws OtlpDecodeError naming what is wrong. */
export function decodeOtlp(signal: Exclude<OtlpSignal, 'metrics'>, encoding: OtlpEncoding, body: Buffer): TelemetryRecord[] {
  const request = encoding === 'json' ? parseJson(body) : parseProtobuf(signal, body);
  return signal === 'logs' ? logRecords(request) : spanEvents(request);
}
