import { boundedId, boundedText, MAX_AGENT_CHARS, saneDuration, type Adjustment } from './receive/bounds.js';
import type { TokenUsage } from '../base/usage.js';
import type { SpawnedBy } from '../base/events.js';
import { own, type AttributeValue, type TelemetryRecord } from './receive/decode.js';
import { commandOf, isToolRefusal } from '../base/errors/tool-refusal.js';
import { BLOCKED_ON_USER_SPAN } from './approval/approval-spans.js';
import { INCIDENT_EVENTS, incidentOf, type AttributeReader, type Incident } from './agent-incidents.js';

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
  /** service.name as sent (`claude-code`, `claude-code-desktop`, `codex_exec`, …), when it was. */
  service?: string;
  parent: { runId: string; taskId: string; attempt: number } | null;
  /** Values of the session's resource or attributes the receiver did not take as sent (bounds.ts). */
  adjustments: Adjustment[];
  /**
   * The record names no session (no `session.id`, `conversation.id` or Hivewatch attempt): it
   * never starts a run of its own (ingest.ts attaches it to its agent's one open session, if any).
   */
  anonymous?: boolean;
  /** A subagent's session: the run of the agent that started it (subagents.ts). */
  spawnedBy?: SpawnedBy;
  /** `spawnedBy` comes from a record of its own (Codex's spawn record): a run already started is linked by `externalRunSpawned`. */
  linksLate?: boolean;
}

export type FactBody =
  | { kind: 'prompt'; promptId: string | null }
  /** A request that ended well (Claude Code's `api_request`). */
  | { kind: 'apiRequest'; promptId: string | null; durationMs: number }
  /** A request the provider answered and whose stream is still to come (Codex's 2xx `api_request`). */
  | { kind: 'requestOpened'; promptId: string | null; durationMs: number }
  /** The open request's stream ended well (Codex's `response.completed` without an error). */
  | { kind: 'streamCompleted'; promptId: string | null }
  /** The answer reached the agent (Claude Code's `assistant_response`): the prompt's request succeeded. */
  | { kind: 'responded'; promptId: string | null }
  /**
   * A failed request. `stream`: it failed inside an open request's stream (Codex's `sse_event`
   * errors: the first of a stream is its failure, the ones after it repeat it).
   */
  | {
      kind: 'apiError';
      promptId: string | null;
      status: number | null;
      message: string;
      reportedAttempt: number | null;
      durationMs: number;
      model: string | null;
      stream: boolean;
    }
  /** A try the CLI made again (Claude Code's trace event `gen_ai.request.attempt` n of the request's N). */
  | { kind: 'retriedTry'; promptId: string | null; tryNumber: number; tries: number; status: number | null; message: string | null }
  | { kind: 'toolFailed'; promptId: string | null; tool: string; message: string }
  /**
   * A tool call the CLI's permissions refused (Claude Code's `tool_decision` {decision: reject},
   * Codex's `tool_result` whose output is its refusal): the one classifier's AGENT_SCOPE_VIOLATION.
   * `detail`: the command asked for, when the record says; `source`: who refused (Claude Code's `source`);
   * `toolUseId`: the call's id (`tool_use_id`, Codex's `call_id`), which a preset's reading of the same refusal names too.
   */
  | { kind: 'toolRefused'; promptId: string | null; tool: string; detail: string | null; source: string | null; toolUseId: string | null }
  | { kind: 'toolSucceeded'; promptId: string | null }
  /** A GenAI `execute_tool` span: an attempt of its own, failed when the span says so. */
  | { kind: 'toolCall'; promptId: string | null; tool: string; durationMs: number; failure: string | null }
  /** A GenAI `invoke_agent` span (or an SDK's call around its model calls) ended: its verdict on its task; `ok`: its status is OK. */
  | { kind: 'agentEnded'; promptId: string | null; failure: { status: number | null; message: string } | null; ok: boolean }
  /** A hook, compaction, refusal, internal error or MCP server that went wrong (agent-incidents.ts). */
  | { kind: 'incident'; promptId: string | null; incident: Incident }
  /** Kept as it is; `reason`: why a record that looked like a known kind could not be read as one. */
  | { kind: 'other'; promptId: string | null; known: boolean; reason?: string };

/**
 * A record's meaning, and the values of it the receiver did not take as sent. `usage`: what the
 * request consumed, as reported (a GenAI span's `gen_ai.usage.*`); `taskName`: the name a task
 * it opens gets (default `prompt n`).
 */
export type Fact = FactBody & { adjustments: Adjustment[]; usage?: TokenUsage; taskName?: string };

/** Events each catalog documents (docs/otel.md cites them); other names are kept as unknown. */
const KNOWN = new Set([
  'claude_code.user_prompt',
  'claude_code.tool_result',
  'claude_code.api_request',
  'claude_code.api_error',
  'claude_code.tool_decision',
  'claude_code.api_request_body',
  'claude_code.api_response_body',
  'codex.conversation_starts',
  'codex.api_request',
  'codex.sse_event',
  'codex.user_prompt',
  'codex.tool_decision',
  'codex.tool_result',
  'codex.websocket_request',
  'codex.websocket_event',
  'codex.turn_ttft',
  // Seen from Codex 0.171.0 (its subagent recording): a message between two of its threads.
  'codex.agent_communication',
  // Codex 0.171.0's metric point of a thread a thread spawned, journaled on the spawner's run (metrics/codex.ts).
  'codex.thread.started',
  // Seen from the real CLIs (docs/real-agents.md): Claude Code 2.1.332 and Codex 0.169.0.
  'claude_code.api_retries_exhausted',
  'claude_code.assistant_response',
  'claude_code.subagent_completed',
  'gen_ai.request.attempt',
  'codex.startup_phase',
  'codex.auth_recovery',
  BLOCKED_ON_USER_SPAN,
  ...INCIDENT_EVENTS,
]);

export const str = (v: AttributeValue | undefined): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

export function num(v: AttributeValue | undefined): number | null {
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

export const safe = (text: string): string => text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';

/** Collects the adjustments of bounded values while reading them. */
export class Bounded {
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

/**
 * OTEL_RESOURCE_ATTRIBUTES values are percent-encoded (the OpenTelemetry spec); Claude Code
 * decodes them, Codex 0.169.0 passes them as given (docs/real-agents.md): decoded here for both.
 */
function percentDecoded(value: string | null): string | null {
  if (value === null || !/%[0-9A-Fa-f]{2}/.test(value)) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The Hivewatch attempt a preset's child reports from (OTEL_RESOURCE_ATTRIBUTES, see presetTelemetryEnv). */
export function parentOf(record: TelemetryRecord, bounded: Bounded): SessionRef['parent'] {
  const runId = bounded.id(percentDecoded(str(own(record.resource, 'hivewatch.run_id'))), 'resource.hivewatch.run_id');
  const taskId = bounded.id(percentDecoded(str(own(record.resource, 'hivewatch.task_id'))), 'resource.hivewatch.task_id');
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
  const anonymous = bySession === null && str(attr(record, 'conversation.id')) === null;
  const sent = str(own(record.resource, 'service.name'));
  return {
    agent,
    origin: `runtime:${agent}`,
    sessionId,
    source,
    parent,
    adjustments: bounded.adjustments,
    ...(sent !== null ? { service: sent } : {}),
    ...(anonymous ? { anonymous } : {}),
  };
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
  const message = (key: string): string | null => bounded.text(str(a(key)), `attributes.${key}`);
  // Codex counts the tries of one stream attempt from 0; Claude Code counts requests from 1.
  const given = num(a('attempt'));
  const reportedAttempt = given !== null && name.startsWith('codex.') ? given + 1 : given;
  const failure = { promptId, reportedAttempt, durationMs, model };
  switch (name) {
    case 'claude_code.user_prompt':
    case 'codex.user_prompt':
      return { kind: 'prompt', promptId };
    case 'claude_code.api_request':
      return { kind: 'apiRequest', promptId, durationMs };
    case 'claude_code.api_error':
      return { kind: 'apiError', ...failure, status: statusOf(record, bounded), message: message('error') ?? 'API error', stream: false };
    case 'claude_code.assistant_response':
      return { kind: 'responded', promptId };
    case 'gen_ai.request.attempt':
      return retriedTry(record, promptId, bounded);
    case 'codex.api_request': {
      // Codex reports every request here, failed or not: an error message or a non-2xx status is a failure.
      const status = statusOf(record, bounded);
      const error = message('error.message');
      if (error === null && (status === null || (status >= 200 && status < 300))) return { kind: 'requestOpened', promptId, durationMs };
      return { kind: 'apiError', ...failure, status, message: error ?? `HTTP ${status}`, stream: false };
    }
    case 'codex.sse_event': {
      const error = message('error.message');
      if (error !== null) return { kind: 'apiError', ...failure, status: null, message: error, stream: true };
      if (str(a('event.kind')) === 'response.completed') return { kind: 'streamCompleted', promptId };
      return { kind: 'other', promptId, known: true };
    }
    case 'claude_code.tool_decision': {
      if (str(a('decision')) !== 'reject') return { kind: 'other', promptId, known: true };
      const tool = bounded.text(str(a('tool_name')), 'attributes.tool_name', 200) ?? 'unknown';
      return {
        kind: 'toolRefused',
        promptId,
        tool,
        detail: null,
        source: bounded.text(str(a('source')), 'attributes.source', 200),
        toolUseId: bounded.id(str(a('tool_use_id')), 'attributes.tool_use_id'),
      };
    }
    case 'claude_code.tool_result':
    case 'codex.tool_result': {
      if (bool(a('success')) === false) {
        const tool = bounded.text(str(a('tool_name')), 'attributes.tool_name', 200) ?? 'unknown';
        // The refusal's words are read to classify it, never kept (a tool's output is content: docs/otel.md).
        const output = str(a('output'));
        if (output !== null && isToolRefusal(output)) {
          const args = str(a('arguments'));
          const detail = args === null ? null : bounded.text(commandOf(tool, args), 'attributes.arguments', 500);
          return {
            kind: 'toolRefused',
            promptId,
            tool,
            detail,
            source: null,
            toolUseId: bounded.id(str(a('tool_use_id')) ?? str(a('call_id')), 'attributes.call_id'),
          };
        }
        return { kind: 'toolFailed', promptId, tool, message: message('error') ?? exitOf(output) ?? '' };
      }
      return { kind: 'toolSucceeded', promptId };
    }
    default: {
      const incident = incidentOf(name, reader(a, bounded));
      return incident !== null ? { kind: 'incident', promptId, incident } : { kind: 'other', promptId, known: KNOWN.has(name) };
    }
  }
}

/** Bounded reads of a record's attributes (a count: a whole number from 0). */
function reader(a: (key: string) => AttributeValue | undefined, bounded: Bounded): AttributeReader {
  return {
    text: (key, max) => bounded.text(str(a(key)), `attributes.${key}`, max),
    count: (key) => bounded.integer(num(a(key)), `attributes.${key}`, 0, Number.MAX_SAFE_INTEGER),
  };
}

/**
 * Why a Codex tool failed, without its output (the tool's result is content, docs/otel.md "Content:
 * what is kept"): the exit status its output states (`Process exited with code 1`), else nothing.
 */
function exitOf(output: string | null): string | null {
  const exit = output === null ? null : /Process exited with code (-?\d+)/.exec(output);
  return exit ? `exited with code ${exit[1]}` : null;
}

/**
 * Claude Code's trace event `gen_ai.request.attempt` {attempt n} on its `claude_code.llm_request`
 * span {attempt N}: one per try of the request. Try N is the request the logs report
 * (`api_request` or `api_error`); a try before it is one the CLI made again, and when the request
 * failed in the end the span says why (its `status_code` and `error`).
 */
function retriedTry(record: TelemetryRecord, promptId: string | null, bounded: Bounded): FactBody {
  const span = record.spanAttributes ?? {};
  const tryNumber = num(own(record.attributes, 'attempt'));
  const tries = num(own(span, 'attempt'));
  if (tryNumber === null || tries === null || !Number.isInteger(tryNumber) || tryNumber >= tries || tryNumber < 1)
    return { kind: 'other', promptId, known: true };
  const failed = bool(own(span, 'success')) === false;
  const status = failed ? bounded.integer(num(own(span, 'status_code')), 'span.status_code', 100, 599) : null;
  const message = failed ? bounded.text(str(own(span, 'error')), 'span.error') : null;
  return { kind: 'retriedTry', promptId, tryNumber, tries, status, message };
}
