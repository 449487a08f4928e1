/**
 * What Claude Code reports of the parts around the model (docs/otel.md "Hooks, compaction,
 * refusals, internal errors, MCP servers"): a hook that blocked or failed, a compaction that
 * failed, a refusal, an exception of the CLI's own, an MCP server it could not connect. Each is
 * an incident the one classifier (classify.ts) gives a code; the events that report something
 * that went well (a hook that ran clean, a compaction that worked, a server that connected) are
 * facts, kept as they are. Pure: the attribute reads are the caller's (mapping.ts bounds them).
 */

export type Incident =
  /** A `hook_execution_complete` whose hooks blocked, failed or were cancelled; `hook`: the CLI's hook name (`PreToolUse:Bash`). */
  | { kind: 'hook'; hook: string; hookEvent: string | null; blocking: number; failed: number; cancelled: number; hooks: number | null }
  | { kind: 'compactionFailed'; trigger: string | null; preTokens: number | null; error: string | null }
  | { kind: 'refusal'; model: string | null; category: string | null }
  | { kind: 'internalError'; errorName: string; errorCode: string | null }
  /** `server`: null when the CLI withholds the name (Claude Code names it only with OTEL_LOG_TOOL_DETAILS=1). */
  | { kind: 'mcpFailed'; server: string | null; transport: string | null; error: string | null; errorCode: string | null };

/** Reads one attribute of the record, bounded (mapping.ts's Bounded). */
export interface AttributeReader {
  text(key: string, max?: number): string | null;
  count(key: string): number | null;
}

/** The events read here (Claude Code's names, `claude_code.` + the event). */
export const INCIDENT_EVENTS: readonly string[] = [
  'claude_code.hook_execution_start',
  'claude_code.hook_execution_complete',
  'claude_code.compaction',
  'claude_code.api_refusal',
  'claude_code.internal_error',
  'claude_code.mcp_server_connection',
];

const NAME_MAX = 200;

/** The incident a record reports, or null when it reports a fact (or is not one of INCIDENT_EVENTS). */
export function incidentOf(name: string, read: AttributeReader): Incident | null {
  switch (name) {
    case 'claude_code.hook_execution_complete':
      return hookIncident(read);
    case 'claude_code.compaction':
      // `success` is sent as the text "true" / "false"; only a stated failure is one.
      if (read.text('success') !== 'false') return null;
      return { kind: 'compactionFailed', trigger: read.text('trigger', NAME_MAX), preTokens: read.count('pre_tokens'), error: read.text('error') };
    case 'claude_code.api_refusal':
      return { kind: 'refusal', model: read.text('model', NAME_MAX), category: read.text('category', NAME_MAX) };
    case 'claude_code.internal_error':
      return { kind: 'internalError', errorName: read.text('error_name', NAME_MAX) ?? 'Error', errorCode: read.text('error_code', NAME_MAX) };
    case 'claude_code.mcp_server_connection':
      if (read.text('status') !== 'failed') return null;
      return {
        kind: 'mcpFailed',
        server: read.text('server_name', NAME_MAX),
        transport: read.text('transport_type', NAME_MAX),
        error: read.text('error'),
        errorCode: read.text('error_code', NAME_MAX),
      };
    default:
      return null;
  }
}

function hookIncident(read: AttributeReader): Incident | null {
  const blocking = read.count('num_blocking') ?? 0;
  const failed = read.count('num_non_blocking_error') ?? 0;
  const cancelled = read.count('num_cancelled') ?? 0;
  if (blocking <= 0 && failed <= 0 && cancelled <= 0) return null;
  const hookEvent = read.text('hook_event', NAME_MAX);
  const hook = read.text('hook_name', NAME_MAX) ?? hookEvent ?? 'unknown';
  return {
    kind: 'hook',
    hook,
    hookEvent,
    blocking: Math.max(0, blocking),
    failed: Math.max(0, failed),
    cancelled: Math.max(0, cancelled),
    hooks: read.count('num_hooks'),
  };
}

/** Whether the incident stops what it happened in (a blocking hook, a refusal): the prompt ends failed with it. */
export function stops(incident: Incident): boolean {
  return (incident.kind === 'hook' && incident.blocking > 0) || incident.kind === 'refusal';
}
