import type { Correlation } from '../base/errors/envelope.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { firstLine } from '../runtimes/preset.js';
import { classifyProviderFailure, toolRefusalError, type DeniedTool } from '../runtimes/provider-failure.js';

/**
 * An API failure a CLI reported in its telemetry (docs/otel.md "Errors"), classified by the one
 * classifier the presets use too (core/runtimes/provider-failure.ts), so a failure gets the same
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

/** The one classifier's error (core/runtimes/provider-failure.ts), placed in the session's run. */
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
