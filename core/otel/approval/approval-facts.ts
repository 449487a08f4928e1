import { approvalLabel } from '../../base/approval-wait.js';
import { own, type AttributeValue, type TelemetryRecord } from '../receive/decode.js';
import { BLOCKED_ON_USER_SPAN } from './approval-spans.js';
import { boundedText } from '../receive/bounds.js';

/**
 * What a record says of a permission prompt (pure; docs/otel.md "Waiting for approval"):
 *
 * - `opened`: a prompt is open now. Claude Code says so with a `tool.blocked_on_user` span sent
 *   without an end, and by running its `PermissionRequest` hooks (`hook_execution_start`
 *   {hook_event PermissionRequest}), which it does as it shows the dialog.
 * - `decided`: a decision ended the wait. Claude Code's and Codex's `tool_decision` (timed at the
 *   decision, `since` unknown), and a blocked-on-user span with its end (`since` its start).
 *
 * The tool's detail (the command) comes only from what the record carries: Claude Code's
 * `tool_parameters` (with OTEL_LOG_TOOL_DETAILS=1), else the span's `bash_argv0`.
 */

export type ApprovalSignal =
  | { kind: 'opened'; tool: string; label: string; since: number }
  | { kind: 'decided'; tool: string; label: string; since: number | null; at: number; decision: string | null; source: string | null };

const MAX = 200;

const ownOf = (o: Readonly<Record<string, unknown>>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

const text = (v: AttributeValue | unknown): string | null => (typeof v === 'string' && v !== '' ? boundedText(v, 'approval', MAX).value : null);

/** Claude Code's `tool_parameters` (JSON text, with tool details on): the Bash command, else nothing. */
function commandOf(parameters: string | null): string | null {
  if (parameters === null) return null;
  try {
    const value = JSON.parse(parameters) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const command = (value as Record<string, unknown>).bash_command ?? (value as Record<string, unknown>).command;
    return typeof command === 'string' && command !== '' ? boundedText(command, 'approval', MAX).value : null;
  } catch {
    return null;
  }
}

export function approvalSignalOf(name: string, record: TelemetryRecord, ts: number): ApprovalSignal | null {
  const a = (key: string): string | null => text(own(record.attributes, key));
  switch (name) {
    case 'claude_code.hook_execution_start': {
      if (a('hook_event') !== 'PermissionRequest') return null;
      // The hook's name is `<event>:<matcher>` (`PermissionRequest:Bash`): the matcher is the tool.
      const tool = a('tool_name') ?? a('hook_name')?.split(':')[1] ?? 'a tool';
      return { kind: 'opened', tool, label: approvalLabel(tool, null), since: ts };
    }
    case 'claude_code.tool_decision':
    case 'codex.tool_decision': {
      const tool = a('tool_name') ?? 'a tool';
      return {
        kind: 'decided',
        tool,
        label: approvalLabel(tool, commandOf(a('tool_parameters'))),
        since: null,
        at: ts,
        decision: a('decision'),
        source: a('source'),
      };
    }
    case BLOCKED_ON_USER_SPAN: {
      const interval = record.interval;
      if (interval === undefined) return null;
      const parent: Readonly<Record<string, unknown>> = record.parentAttributes ?? {};
      const tool = text(ownOf(parent, 'tool_name')) ?? 'a tool';
      const argv0 = text(ownOf(parent, 'bash_argv0'));
      // The span names the program only (`rm`), never its arguments: the label says so.
      const label = approvalLabel(tool, argv0 === null ? null : `${argv0} …`);
      if (interval.endMs === null) return { kind: 'opened', tool, label, since: ts };
      return { kind: 'decided', tool, label, since: ts, at: ts + (interval.endMs - interval.startMs), decision: a('decision'), source: a('source') };
    }
    default:
      return null;
  }
}
