import { attributes, type Attributes } from '../../core/otel/receive/decode.js';
import { ExportLogsServiceRequest, ExportTraceServiceRequest, TO_OBJECT_OPTIONS } from '../../core/otel/receive/schema.js';
import type { CapturedExport } from './otlp-capture.js';

/**
 * What a CLI exported, read back from the captured OTLP bodies (JSON or protobuf alike, through
 * the receiver's own protobuf schema, core/otel/receive/schema.ts): log records with the raw fields the
 * names come from (body, eventName, the `event.name` attribute), and spans with their events.
 * Raw on purpose: the later mapping work needs to see which field carries what.
 */

export interface LogEntry {
  exportSeq: number;
  /** The record's body when it is a string ('' when absent). */
  body: string;
  /** The OTLP `eventName` field ('' when absent). */
  eventName: string;
  attributes: Attributes;
  resource: Attributes;
  scope: string;
  timeUnixNano: string;
}

interface SpanEventEntry {
  name: string;
  attributes: Attributes;
}

export interface SpanEntry {
  exportSeq: number;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Attributes;
  events: SpanEventEntry[];
  statusCode: number;
  resource: Attributes;
  scope: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function idText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return Buffer.from(value as number[]).toString('hex');
  return '';
}

/** The export request as a plain object with the JSON mapping's field names, whatever its encoding. */
function exportDocument(capture: CapturedExport): Obj {
  if (capture.encoding === 'json') {
    const parsed = JSON.parse(capture.payload.toString('utf8')) as unknown;
    if (!isObj(parsed)) throw new Error(`export ${capture.seq} (${capture.path}) is not a JSON object`);
    return parsed;
  }
  const type = capture.signal === 'traces' ? ExportTraceServiceRequest : ExportLogsServiceRequest;
  return type.toObject(type.decode(capture.payload), TO_OBJECT_OPTIONS) as Obj;
}

function resourceOf(holder: Obj, where: string): Attributes {
  return attributes(isObj(holder.resource) ? holder.resource.attributes : undefined, where);
}

export function logEntries(exports: readonly CapturedExport[]): LogEntry[] {
  const out: LogEntry[] = [];
  for (const capture of exports.filter((e) => e.signal === 'logs')) {
    const doc = exportDocument(capture);
    for (const rl of list(doc.resourceLogs).filter(isObj)) {
      const resource = resourceOf(rl, 'resource');
      for (const sl of list(rl.scopeLogs).filter(isObj)) {
        const scope = isObj(sl.scope) ? text(sl.scope.name) : '';
        for (const lr of list(sl.logRecords).filter(isObj)) {
          const body = isObj(lr.body) ? text(lr.body.stringValue) : '';
          out.push({
            exportSeq: capture.seq,
            body,
            eventName: text(lr.eventName),
            attributes: attributes(lr.attributes, 'logRecord.attributes'),
            resource,
            scope,
            timeUnixNano: String(lr.timeUnixNano ?? ''),
          });
        }
      }
    }
  }
  return out;
}

export function spanEntries(exports: readonly CapturedExport[]): SpanEntry[] {
  const out: SpanEntry[] = [];
  for (const capture of exports.filter((e) => e.signal === 'traces')) {
    const doc = exportDocument(capture);
    for (const rs of list(doc.resourceSpans).filter(isObj)) {
      const resource = resourceOf(rs, 'resource');
      for (const ss of list(rs.scopeSpans).filter(isObj)) {
        const scope = isObj(ss.scope) ? text(ss.scope.name) : '';
        for (const span of list(ss.spans).filter(isObj)) {
          out.push({
            exportSeq: capture.seq,
            name: text(span.name),
            traceId: idText(span.traceId),
            spanId: idText(span.spanId),
            parentSpanId: idText(span.parentSpanId),
            attributes: attributes(span.attributes, 'span.attributes'),
            events: list(span.events)
              .filter(isObj)
              .map((e) => ({ name: text(e.name), attributes: attributes(e.attributes, 'span.event.attributes') })),
            statusCode: isObj(span.status) ? Number(span.status.code ?? 0) : 0,
            resource,
            scope,
          });
        }
      }
    }
  }
  return out;
}

/** A log record's event name as the CLI meant it: `event.name`, else the body, else eventName. */
export function logName(entry: LogEntry): string {
  const attribute = entry.attributes['event.name'];
  if (typeof attribute === 'string' && attribute !== '') {
    // Claude Code's attribute is the bare `api_error`; its body carries the `claude_code.` prefix.
    return entry.body.endsWith(`.${attribute}`) ? entry.body : attribute;
  }
  return entry.body || entry.eventName;
}

/** Log records named `name`, in export order. */
export function logsNamed(exports: readonly CapturedExport[], name: string): LogEntry[] {
  return logEntries(exports).filter((e) => logName(e) === name);
}

/** The JSON lines a CLI printed on stdout (lines that are not JSON objects are left out). */
export function jsonLines(stdout: string): Obj[] {
  const out: Obj[] = [];
  for (const line of stdout.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (isObj(value)) out.push(value);
    } catch {
      // A partial line (a killed CLI): not an event.
    }
  }
  return out;
}

/** The stdout JSON lines of one kind (`system/api_retry`, `item.completed/agent_message`, …). */
export function linesOfKind(stdout: string, kind: string): Obj[] {
  return jsonLines(stdout).filter((line) => lineKind(line) === kind);
}

/** A stdout line's kind: its type, with the subtype (Claude Code) or the item's type (Codex). */
export function lineKind(line: Obj): string {
  const type = typeof line.type === 'string' ? line.type : '?';
  if (typeof line.subtype === 'string') return `${type}/${line.subtype}`;
  const item = line.item;
  if (isObj(item) && typeof item.type === 'string') return `${type}/${item.type}`;
  return type;
}

/** The spans named `name`. */
export function spansNamed(exports: readonly CapturedExport[], name: string): SpanEntry[] {
  return spanEntries(exports).filter((s) => s.name === name);
}
