import { isRecord, parseJson } from '../json.js';
import { HivewatchError } from './hivewatch-error.js';

/** One tool call a CLI's permission layer refused: the tool, and what was asked for (a command line, a file path) when the CLI says. */
export interface DeniedTool {
  tool: string;
  detail: string | null;
  /**
   * The CLI's id of the refused call (Claude Code's `tool_use_id`, Codex's `call_id`), when it
   * says: the id its telemetry's decision event carries too, which links the two reports.
   */
  toolUseId?: string | null;
}

/**
 * The words a CLI's refusal of a tool call is sent to the model in (Codex: "approval policy is
 * Never; reject command — …", "rejected by user"), whichever way they arrive: a preset's
 * rollout or stderr, a tool result in the telemetry.
 */
const TOOL_REFUSED = /reject command|rejected by (the )?user|approval policy is never/i;

export function isToolRefusal(text: string): boolean {
  return TOOL_REFUSED.test(text);
}

export interface ToolRefusal {
  /** `claude-code`, `codex-cli`. */
  runtime: string;
  /** The origin's agent: the flow's agent a preset ran, else the CLI seen through its telemetry. */
  agent: string;
  denied: readonly DeniedTool[];
  context?: Record<string, unknown>;
}

/**
 * The one code of a refused tool call, whichever path reported it (a preset's result, Claude
 * Code's `tool_decision` {decision: reject}, Codex's refused `tool_result`): the agent asked for
 * more than its permissions allow, which the same prompt under the same permissions asks again
 * — AGENT_SCOPE_VIOLATION (agent category, never retried; docs/presets.md "One refusal, one code").
 * Not a failed tool (AGENT_TOOL_FAILED: the tool ran and failed), and not a SCOPE_* error (those
 * are Hivewatch's own scope enforcer's).
 */
export function toolRefusalError(r: ToolRefusal): HivewatchError {
  const tools = [...new Set(r.denied.map((d) => d.tool))];
  const safe = r.agent.replace(/[^A-Za-z0-9_.-]/g, '_') || 'default';
  const runtime = r.agent === r.runtime ? '' : ` (runtime ${r.runtime})`;
  return new HivewatchError('AGENT_SCOPE_VIOLATION', {
    message: `agent ${r.agent}${runtime} was denied permission to use ${tools.join(', ')}`,
    origin: `agent:${safe}`,
    recoveryHint: "Grant the tool in the CLI's permission settings, or narrow the agent's instructions",
    context: {
      ...r.context,
      deniedTools: tools,
      denials: r.denied.map((d) => ({ tool: d.tool, detail: d.detail, ...(d.toolUseId ? { toolUseId: d.toolUseId } : {}) })),
    },
  });
}

/**
 * The command line a tool call's arguments (JSON) ask for: Codex's `exec_command` {cmd},
 * `shell` {command: [..]}; else the tool's name. A refusal names what was refused by it, whether
 * the call came from a rollout file or from telemetry.
 */
export function commandOf(name: string, args: string): string | null {
  const parsed = parseJson(args);
  if (!parsed.ok || !isRecord(parsed.value)) return null;
  const v = parsed.value;
  if (typeof v.cmd === 'string') return v.cmd;
  if (Array.isArray(v.command)) return v.command.map(String).join(' ');
  if (typeof v.command === 'string') return v.command;
  return name;
}
