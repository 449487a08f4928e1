import { ExportLogsServiceRequest, ExportTraceServiceRequest, TO_OBJECT_OPTIONS } from './schema.js';

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
  /** Milliseconds since the epoch (the record's time, else its observed time; 0 when neither is set). */
  timeMs: number;
  attributes: Attributes;
  resource: Attributes;
  /** `logs` or `traces`. */
  signal: OtlpSignal;
  /** The log body when it is text and not the name itself. */
  body: string | null;
}

export type OtlpSignal = 'logs' | 'traces';
export type OtlpEncoding = 'json' | 'protobuf';

/** A payload that is not an OTLP request of its signal: the receiver answers 400 with `message`. */
export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function list(value: unknown, where: string): unknown[] {
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
export function anyValue(value: unknown, where = 'value'): AttributeValue {
  if (!isObj(value)) return null;
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
    return list(arr, `${where}.arrayValue.values`).map((v, i) => anyValue(v, `${where}[${i}]`));
  }
  if ('kvlistValue' in value) {
    const kv = isObj(value.kvlistValue) ? value.kvlistValue.values : undefined;
    return attributes(kv, `${where}.kvlistValue`);
  }
  if ('bytesValue' in value) return hex(value.bytesValue);
  return null;
}

export function attributes(value: unknown, where: string): Attributes {
  const out: Attributes = {};
  for (const [i, kv] of list(value, where).entries()) {
    if (!isObj(kv) || typeof kv.key !== 'string') throw new OtlpDecodeError(`${where}[${i}] must be a {key, value} object`);
    out[kv.key] = anyValue(kv.value, `${where}.${kv.key}`);
  }
  return out;
}

function nanosToMs(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const text = typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? String(value) : '';
  if (!/^\d+$/.test(text)) throw new OtlpDecodeError(`a time must be an unsigned integer of nanoseconds, got ${JSON.stringify(value)}`);
  return Number(BigInt(text) / 1_000_000n);
}

function nameOf(eventName: unknown, attrs: Attributes, body: AttributeValue): string {
  const named = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_.-]+$/.test(v);
  const candidates = [eventName, attrs['event.name'], body].filter(named);
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
        out.push({
          name,
          timeMs: nanosToMs(lr.timeUnixNano) || nanosToMs(lr.observedTimeUnixNano),
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

function spanEvents(request: Obj): TelemetryRecord[] {
  const out: TelemetryRecord[] = [];
  for (const [r, rs] of list(request.resourceSpans, 'resourceSpans').entries()) {
    if (!isObj(rs)) throw new OtlpDecodeError(`resourceSpans[${r}] must be an object`);
    const resource = attributes(isObj(rs.resource) ? rs.resource.attributes : undefined, `resourceSpans[${r}].resource.attributes`);
    for (const [s, ss] of list(rs.scopeSpans, `resourceSpans[${r}].scopeSpans`).entries()) {
      if (!isObj(ss)) throw new OtlpDecodeError(`resourceSpans[${r}].scopeSpans[${s}] must be an object`);
      for (const [p, span] of list(ss.spans, `resourceSpans[${r}].scopeSpans[${s}].spans`).entries()) {
        const where = `resourceSpans[${r}].scopeSpans[${s}].spans[${p}]`;
        if (!isObj(span)) throw new OtlpDecodeError(`${where} must be an object`);
        const spanAttrs = attributes(span.attributes, `${where}.attributes`);
        for (const [e, event] of list(span.events, `${where}.events`).entries()) {
          if (!isObj(event)) throw new OtlpDecodeError(`${where}.events[${e}] must be an object`);
          const attrs = { ...spanAttrs, ...attributes(event.attributes, `${where}.events[${e}].attributes`) };
          out.push({
            name: typeof event.name === 'string' ? event.name : '',
            timeMs: nanosToMs(event.timeUnixNano) || nanosToMs(span.startTimeUnixNano),
            attributes: attrs,
            resource,
            signal: 'traces',
            body: null,
          });
        }
      }
    }
  }
  return out;
}

function parseJson(body: Buffer): Obj {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new OtlpDecodeError(`the body is not JSON: ${(error as Error).message}`);
  }
  if (!isObj(value)) throw new OtlpDecodeError('the body must be a JSON object (an OTLP export request)');
  return value;
}

function parseProtobuf(signal: OtlpSignal, body: Buffer): Obj {
  const type = signal === 'logs' ? ExportLogsServiceRequest : ExportTraceServiceRequest;
  try {
    return type.toObject(type.decode(body), TO_OBJECT_OPTIONS) as Obj;
  } catch (error) {
    throw new OtlpDecodeError(`the body is not a protobuf ${type.name}: ${(error as Error).message}`);
  }
}

/** Decodes one OTLP/HTTP request body. Throws OtlpDecodeError naming what is wrong. */
export function decodeOtlp(signal: OtlpSignal, encoding: OtlpEncoding, body: Buffer): TelemetryRecord[] {
  const request = encoding === 'json' ? parseJson(body) : parseProtobuf(signal, body);
  return signal === 'logs' ? logRecords(request) : spanEvents(request);
}
