import type { Attributes, AttributeValue, TelemetryRecord } from './decode.js';

/**
 * What one telemetry record means to Hivewatch (pure; docs/otel.md "Mapping"): which agent
 * session it belongs to, and whether it is a prompt, an API request, an API error, a failed
 * tool, or another event (known or not) that is kept as it is.
 */

export const CLAUDE_CODE = 'claude-code';
export const CODEX_CLI = 'codex-cli';
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
}

export type Fact =
  | { kind: 'prompt'; promptId: string | null }
  | { kind: 'apiRequest'; promptId: string | null; durationMs: number }
  | { kind: 'apiError'; promptId: string | null; status: number | null; message: string; reportedAttempt: number | null; durationMs: number; model: string | null }
  | { kind: 'toolFailed'; promptId: string | null; tool: string; message: string }
  | { kind: 'other'; promptId: string | null; known: boolean };

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

/**
 * The full event name: Claude Code names its log records `claude_code.<event>` (its `event.name`
 * attribute is the bare `<event>`), Codex `codex.<event>`.
 */
export function eventName(record: TelemetryRecord): string {
  const name = record.name;
  if (name.includes('.') || name === '') return name;
  const service = str(record.resource['service.name']) ?? '';
  if (service.startsWith('claude')) return `claude_code.${name}`;
  if (service.startsWith('codex')) return `codex.${name}`;
  return name;
}

function agentOf(record: TelemetryRecord, name: string): string {
  const service = str(record.resource['service.name']) ?? '';
  if (name.startsWith('claude_code.') || service.startsWith('claude')) return CLAUDE_CODE;
  if (name.startsWith('codex.') || service.startsWith('codex')) return CODEX_CLI;
  return safe(service || 'unknown');
}

function attr(record: TelemetryRecord, key: string): AttributeValue | undefined {
  return record.attributes[key] ?? record.resource[key];
}

/** The Hivewatch attempt a preset's child reports from (OTEL_RESOURCE_ATTRIBUTES, see presetTelemetryEnv). */
function parentOf(record: TelemetryRecord): SessionRef['parent'] {
  const runId = str(record.resource['hivewatch.run_id']);
  const taskId = str(record.resource['hivewatch.task_id']);
  const attempt = num(record.resource['hivewatch.attempt']);
  return runId && taskId && attempt !== null ? { runId, taskId, attempt } : null;
}

export function sessionOf(record: TelemetryRecord): SessionRef {
  const name = eventName(record);
  const agent = agentOf(record, name);
  const parent = parentOf(record);
  const sessionId =
    str(attr(record, 'session.id')) ??
    str(attr(record, 'conversation.id')) ??
    (parent ? `${parent.runId}/${parent.taskId}/${parent.attempt}` : 'unknown');
  const service = str(record.resource['service.name']) ?? agent;
  const version = str(record.resource['service.version']) ?? str(attr(record, 'app.version'));
  return { agent, origin: `runtime:${agent}`, sessionId, source: version ? `${service} ${version}` : service, parent };
}

export const sessionKeyOf = (s: Pick<SessionRef, 'origin' | 'sessionId'>): string => `${s.origin}\n${s.sessionId}`;

/** HTTP status of an API event (Claude Code `status_code`, Codex `http.response.status_code`). */
function statusOf(record: TelemetryRecord): number | null {
  return num(record.attributes['status_code']) ?? num(record.attributes['http.response.status_code']);
}

export function factOf(record: TelemetryRecord): Fact {
  const name = eventName(record);
  const a = record.attributes;
  const promptId = str(a['prompt.id']);
  const durationMs = num(a['duration_ms']) ?? 0;
  const model = str(a['model']);
  const reportedAttempt = num(a['attempt']);
  switch (name) {
    case 'claude_code.user_prompt':
    case 'codex.user_prompt':
      return { kind: 'prompt', promptId };
    case 'claude_code.api_request':
      return { kind: 'apiRequest', promptId, durationMs };
    case 'claude_code.api_error':
      return { kind: 'apiError', promptId, status: statusOf(record), message: str(a['error']) ?? 'API error', reportedAttempt, durationMs, model };
    case 'codex.api_request': {
      // Codex reports every request here, failed or not: an error message or a non-2xx status is a failure.
      const status = statusOf(record);
      const error = str(a['error.message']);
      if (error === null && (status === null || (status >= 200 && status < 300))) return { kind: 'apiRequest', promptId, durationMs };
      return { kind: 'apiError', promptId, status, message: error ?? `HTTP ${status}`, reportedAttempt, durationMs, model };
    }
    case 'codex.sse_event': {
      const error = str(a['error.message']);
      if (error !== null) return { kind: 'apiError', promptId, status: null, message: error, reportedAttempt, durationMs, model };
      return { kind: 'other', promptId, known: true };
    }
    case 'claude_code.tool_result':
    case 'codex.tool_result': {
      if (bool(a['success']) === false) {
        const tool = str(a['tool_name']) ?? 'unknown';
        return { kind: 'toolFailed', promptId, tool, message: str(a['error']) ?? str(a['output']) ?? '' };
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
