import { boundedId, boundedText, MAX_AGENT_CHARS, saneDuration, type Adjustment } from './bounds.js';
import { own, type Attributes, type AttributeValue, type TelemetryRecord } from './decode.js';

/**
 * What one telemetry record means to Hivewatch (pure; docs/otel.md "Mapping"): which agent
 * session it belongs to, and whether it is a prompt, an API request, an API error, a failed
 * tool, or another event (known or not) that is kept as it is.
 */

const CLAUDE_CODE = 'claude-code';
const CODEX_CLI = 'codex-cli';
/** The flow key of external runs: `external:<agent>` (the Runs list shows it as the source). */
export const EXTERNAL_FLOW_PREFIX = 'external:';

export interface SessionRef {
  /** `claude-code`, `codex-cli`, or the sender's service.name made safe for an origin. */
  agent: string;
  origin: string;
  sessionId: string;
  /** service.name and version, as shown in the run's event log. */
  source: string;
  parent: { runId: string; taskId: string; attempt: number } | null;
  /** Values of the session's resource or attributes the receiver did not take as sent (bounds.ts). */
  adjustments: Adjustment[];
}

type FactBody =
  | { kind: 'prompt'; promptId: string | null }
  | { kind: 'apiRequest'; promptId: string | null; durationMs: number }
  | { kind: 'apiError'; promptId: string | null; status: number | null; message: string; reportedAttempt: number | null; durationMs: number; model: string | null }
  | { kind: 'toolFailed'; promptId: string | null; tool: string; message: string }
  | { kind: 'other'; promptId: string | null; known: boolean };

/** A record's meaning, and the values of it the receiver did not take as sent. */
export type Fact = FactBody & { adjustments: Adjustment[] };

/** Events each catalog documents (docs/otel.md cites them); other names are kept as unknown. */
const KNOWN = new Set([
  'claude_code.user_prompt', 'claude_code.tool_result', 'claude_code.api_request', 'claude_code.api_error',
  'claude_code.tool_decision', 'claude_code.api_request_body', 'claude_code.api_response_body',
  'codex.conversation_starts', 'codex.api_request', 'codex.sse_event', 'codex.user_prompt',
  'codex.tool_decision', 'codex.tool_result', 'codex.websocket_request', 'codex.websocket_event', 'codex.turn_ttft',
]);

const str = (v: AttributeValue | undefined): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

function num(v: AttributeValue | undefined): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  return null;
}

function bool(v: AttributeValue | undefined): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

const safe = (text: string): string => text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';

/** Collects the adjustments of bounded values while reading them. */
class Bounded {
  readonly adjustments: Adjustment[] = [];
  private keep<T>(result: { adjustment: Adjustment | null }, value: T): T {
    if (result.adjustment) this.adjustments.push(result.adjustment);
    return value;
  }
  id(value: string | null, field: string, max?: number): string | null {
    if (value === null) return null;
    const result = boundedId(value, field, max);
    return this.keep(result, result.value);
  }
  text(value: string | null, field: string, max?: number): string | null {
    if (value === null) return null;
    const result = boundedText(value, field, max);
    return this.keep(result, result.value);
  }
  duration(value: number | null, field: string): number {
    const result = saneDuration(value, field);
    return this.keep(result, result.ms);
  }
  /** An integer in [min, max], else null (noted when something else was sent). */
  integer(value: number | null, field: string, min: number, max: number): number | null {
    if (value === null || (Number.isInteger(value) && value >= min && value <= max)) return value;
    this.adjustments.push({ field, given: String(value), used: null, reason: `not an integer from ${min} to ${max}: ignored` });
    return null;
  }
}

/**
 * The full event name: Claude Code names its log records `claude_code.<event>` (its `event.name`
 * attribute is the bare `<event>`), Codex `codex.<event>`.
 */
export function eventName(record: TelemetryRecord): string {
  const name = record.name;
  if (name.includes('.') || name === '') return name;
  const service = str(own(record.resource, 'service.name')) ?? '';
  if (service.startsWith('claude')) return `claude_code.${name}`;
  if (service.startsWith('codex')) return `codex.${name}`;
  return name;
}

function agentOf(record: TelemetryRecord, name: string, bounded: Bounded): string {
  const service = str(own(record.resource, 'service.name')) ?? '';
  if (name.startsWith('claude_code.') || service.startsWith('claude')) return CLAUDE_CODE;
  if (name.startsWith('codex.') || service.startsWith('codex')) return CODEX_CLI;
  return bounded.id(safe(service || 'unknown'), 'resource.service.name', MAX_AGENT_CHARS) as string;
}

function attr(record: TelemetryRecord, key: string): AttributeValue | undefined {
  return own(record.attributes, key) ?? own(record.resource, key);
}

/** The Hivewatch attempt a preset's child reports from (OTEL_RESOURCE_ATTRIBUTES, see presetTelemetryEnv). */
function parentOf(record: TelemetryRecord, bounded: Bounded): SessionRef['parent'] {
  const runId = bounded.id(str(own(record.resource, 'hivewatch.run_id')), 'resource.hivewatch.run_id');
  const taskId = bounded.id(str(own(record.resource, 'hivewatch.task_id')), 'resource.hivewatch.task_id');
  const attempt = bounded.integer(num(own(record.resource, 'hivewatch.attempt')), 'resource.hivewatch.attempt', 1, 1_000_000);
  return runId && taskId && attempt !== null ? { runId, taskId, attempt } : null;
}

export function sessionOf(record: TelemetryRecord): SessionRef {
  const bounded = new Bounded();
  const name = eventName(record);
  const agent = agentOf(record, name, bounded);
  const parent = parentOf(record, bounded);
  const bySession = str(attr(record, 'session.id'));
  const given = bySession ?? str(attr(record, 'conversation.id')) ?? (parent ? `${parent.runId}/${parent.taskId}/${parent.attempt}` : 'unknown');
  const sessionId = bounded.id(given, bySession !== null ? 'session.id' : 'conversation.id') as string;
  const service = str(own(record.resource, 'service.name')) ?? agent;
  const version = str(own(record.resource, 'service.version')) ?? str(attr(record, 'app.version'));
  const source = bounded.text(version ? `${service} ${version}` : service, 'resource.service.name', 200) as string;
  return { agent, origin: `runtime:${agent}`, sessionId, source, parent, adjustments: bounded.adjustments };
}

export const sessionKeyOf = (s: Pick<SessionRef, 'origin' | 'sessionId'>): string => `${s.origin}\n${s.sessionId}`;

/** HTTP status of an API event (Claude Code `status_code`, Codex `http.response.status_code`): 100–599 or none. */
function statusOf(record: TelemetryRecord, bounded: Bounded): number | null {
  const field = own(record.attributes, 'status_code') !== undefined ? 'status_code' : 'http.response.status_code';
  return bounded.integer(num(own(record.attributes, field)), `attributes.${field}`, 100, 599);
}

export function factOf(record: TelemetryRecord): Fact {
  const bounded = new Bounded();
  const fact = factBody(record, bounded);
  return { ...fact, adjustments: bounded.adjustments };
}

function factBody(record: TelemetryRecord, bounded: Bounded): FactBody {
  const name = eventName(record);
  const a = (key: string): AttributeValue | undefined => own(record.attributes, key);
  const promptId = bounded.id(str(a('prompt.id')), 'attributes.prompt.id');
  const durationMs = bounded.duration(num(a('duration_ms')), 'attributes.duration_ms');
  const model = bounded.text(str(a('model')), 'attributes.model', 200);
  const reportedAttempt = num(a('attempt'));
  const message = (key: string): string | null => bounded.text(str(a(key)), `attributes.${key}`);
  switch (name) {
    case 'claude_code.user_prompt':
    case 'codex.user_prompt':
      return { kind: 'prompt', promptId };
    case 'claude_code.api_request':
      return { kind: 'apiRequest', promptId, durationMs };
    case 'claude_code.api_error':
      return { kind: 'apiError', promptId, status: statusOf(record, bounded), message: message('error') ?? 'API error', reportedAttempt, durationMs, model };
    case 'codex.api_request': {
      // Codex reports every request here, failed or not: an error message or a non-2xx status is a failure.
      const status = statusOf(record, bounded);
      const error = message('error.message');
      if (error === null && (status === null || (status >= 200 && status < 300))) return { kind: 'apiRequest', promptId, durationMs };
      return { kind: 'apiError', promptId, status, message: error ?? `HTTP ${status}`, reportedAttempt, durationMs, model };
    }
    case 'codex.sse_event': {
      const error = message('error.message');
      if (error !== null) return { kind: 'apiError', promptId, status: null, message: error, reportedAttempt, durationMs, model };
      return { kind: 'other', promptId, known: true };
    }
    case 'claude_code.tool_result':
    case 'codex.tool_result': {
      if (bool(a('success')) === false) {
        const tool = bounded.text(str(a('tool_name')), 'attributes.tool_name', 200) ?? 'unknown';
        return { kind: 'toolFailed', promptId, tool, message: message('error') ?? message('output') ?? '' };
      }
      return { kind: 'other', promptId, known: true };
    }
    default:
      return { kind: 'other', promptId, known: KNOWN.has(name) };
  }
}

/** The attributes journaled with a kept event: the prompt's text only when the operator allows it. */
export function keptAttributes(attributes: Attributes, storePrompts: boolean): Record<string, unknown> {
  if (storePrompts || !('prompt' in attributes)) return attributes;
  const { prompt: _prompt, ...rest } = attributes;
  return { ...rest, prompt: '<not stored: set otel.store_prompts to on>' };
}
