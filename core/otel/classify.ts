import type { Correlation } from '../base/errors/envelope.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { firstLine } from '../base/errors/text.js';
import type { ErrorCode } from '../base/errors/taxonomy.js';
import { classifyProviderFailure } from '../base/errors/provider-failure.js';
import { toolRefusalError, type DeniedTool } from '../base/errors/tool-refusal.js';
import type { Incident } from './agent-incidents.js';

/**
 * An API failure a CLI reported in its telemetry (docs/otel.md "Errors"), classified by the one
 * classifier the presets use too (core/base/errors/provider-failure.ts), so a failure gets the same
 * code whether it arrives as telemetry or as a preset attempt's result.
 */

export interface ApiFailure {
  /** `claude-code`, `codex-cli`. */
  runtime: string;
  status: number | null;
  message: string;
  context: Record<string, unknown>;
  correlation: Partial<Correlation>;
  timestamp: number;
}

/** The one classifier's error (core/base/errors/provider-failure.ts), placed in the session's run. */
export function apiFailureError(f: ApiFailure): HivewatchError {
  return classifyProviderFailure({
    runtime: f.runtime,
    status: f.status,
    message: f.message || 'no details given',
    context: f.context,
    clock: { now: f.timestamp },
  }).withCorrelation(f.correlation, f.timestamp);
}

/** A tool the agent called reported failure: an agent error naming the tool. */
export function toolFailureError(runtime: string, tool: string, message: string, f: Omit<ApiFailure, 'runtime' | 'status' | 'message'>): HivewatchError {
  const detail = firstLine(message);
  return new HivewatchError('AGENT_TOOL_FAILED', {
    origin: `agent:${runtime}`,
    message: `${runtime}: tool ${tool} failed${detail ? `: ${detail}` : ''}`,
    context: { ...f.context, tool },
    correlation: f.correlation,
    timestamp: f.timestamp,
  });
}

/** A tool call the CLI's permissions refused: the one classifier's code (AGENT_SCOPE_VIOLATION), as a preset gives it. */
export function toolRefusedError(runtime: string, denied: DeniedTool, f: Omit<ApiFailure, 'runtime' | 'status' | 'message'>): HivewatchError {
  return toolRefusalError({ runtime, agent: runtime, denied: [denied], context: f.context }).withCorrelation(f.correlation, f.timestamp);
}

/** An origin's name part: what the taxonomy's origins allow (`PreToolUse:Bash` → `PreToolUse-Bash`). */
const originName = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100) || 'unknown';

/**
 * The one classifier's error for an incident around the model (agent-incidents.ts): a hook's
 * under `hook:<name>`, an MCP server's under `mcp:<server>`, the CLI's own exception under
 * `runtime:<cli>`, a refusal or a failed compaction under `agent:<cli>`. Messages name what
 * failed and never a count, so the same failure groups into one issue however often it happens.
 */
export function incidentError(runtime: string, incident: Incident, f: Omit<ApiFailure, 'runtime' | 'status' | 'message'>): HivewatchError {
  const { code, origin, message, context } = incidentParts(runtime, incident);
  return new HivewatchError(code, { origin, message, context: { ...f.context, ...context }, correlation: f.correlation, timestamp: f.timestamp });
}

function incidentParts(runtime: string, i: Incident): { code: ErrorCode; origin: string; message: string; context: Record<string, unknown> } {
  switch (i.kind) {
    case 'hook': {
      const counts = { hook: i.hook, hookEvent: i.hookEvent, hooks: i.hooks, blocking: i.blocking, nonBlockingErrors: i.failed, cancelled: i.cancelled };
      const origin = `hook:${originName(i.hook)}`;
      if (i.blocking > 0)
        return { code: 'AGENT_HOOK_BLOCKED', origin, message: `${runtime}: hook ${i.hook} blocked ${i.hookEvent ?? 'its event'}`, context: counts };
      const what = i.failed > 0 ? 'failed (a non-blocking error)' : 'was cancelled';
      return { code: 'AGENT_HOOK_FAILED', origin, message: `${runtime}: hook ${i.hook} ${what}`, context: counts };
    }
    case 'compactionFailed': {
      const detail = i.error === null ? '' : `: ${firstLine(i.error)}`;
      return {
        code: 'AGENT_COMPACTION_FAILED',
        origin: `agent:${runtime}`,
        message: `${runtime}: ${i.trigger ?? 'the'} compaction of the context failed${detail}`,
        context: { trigger: i.trigger, preTokens: i.preTokens },
      };
    }
    case 'refusal':
      return {
        code: 'AGENT_MODEL_REFUSED',
        origin: `agent:${runtime}`,
        message: `${runtime}: the model${i.model === null ? '' : ` ${i.model}`} refused to answer${i.category === null ? '' : ` (${i.category})`}`,
        context: { model: i.model, category: i.category },
      };
    case 'internalError':
      return {
        code: 'RUNTIME_INTERNAL_ERROR',
        origin: `runtime:${runtime}`,
        message: `${runtime}: internal error ${i.errorName}${i.errorCode === null ? '' : ` (${i.errorCode})`}`,
        context: { errorName: i.errorName, errorCode: i.errorCode },
      };
    case 'mcpFailed': {
      const server = i.server ?? 'unnamed';
      const detail = i.error === null ? '' : `: ${firstLine(i.error)}`;
      return {
        code: 'AGENT_MCP_CONNECTION_FAILED',
        origin: `mcp:${originName(server)}`,
        message: `${runtime}: MCP server ${i.server ?? '(not named: OTEL_LOG_TOOL_DETAILS is off)'} failed to connect${detail}`,
        context: { server: i.server, transport: i.transport, errorCode: i.errorCode },
      };
    }
  }
}
