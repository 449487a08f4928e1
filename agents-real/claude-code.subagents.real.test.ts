import { describe, expect, it } from 'vitest';
import { PERMISSION_HOOK_HOLD_S } from './cli/claude.js';
import { installedCli } from './cli/install.js';
import { liveRuns, liveTitle, shapeTests } from './live.js';
import { runId } from './specs.js';
import { linesOfKind, logsNamed, spansNamed } from './otlp/telemetry.js';

/**
 * Claude Code as it is (the pinned version) against the Anthropic stub, each agent answered from
 * its own script: a subagent whose request gets a 500, three levels of subagents, and a
 * PermissionRequest hook that holds the prompt, then denies it. Each test states a fact
 * docs/real-agents.md and the recorded tests (core/otel/subagents.test.ts, approval-wait.test.ts)
 * rely on.
 */

const install = await installedCli('claude-code');

describe.skipIf(!install.ok)(liveTitle('claude-code', install, 'subagents and a permission hook'), () => {
  const runs = liveRuns('claude-code', install, ['subagent-fails', 'subagent-nested', 'permission-hook-denies']);

  it('stays on loopback; every agent got its own script (no request went unscripted)', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect(record.egress, record.id).toEqual([]);
      expect(record.result.exitCode, record.id).toBe(0);
      expect(
        record.apiRequests.map((r) => r.answer),
        record.id,
      ).not.toContain('unscripted');
    }
  });

  it('a failing subagent: its request gets the 500 and an api_error with its agent_id; it sends no subagent_completed; the session ends well', () => {
    const record = runs.get('subagent-fails.json-out.otlp-json.retries-0');
    // The session's second request and the subagent's first race (the subagent runs in the background): compared as a set.
    expect(record.apiRequests.map((r) => r.answer).sort()).toEqual(['error 500', 'text', 'text', 'tool']);
    const errors = logsNamed(record.otlp, 'claude_code.api_error').map((e) => e.attributes);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status_code: 500, 'agent.name': 'general-purpose' });
    expect(typeof errors[0]!.agent_id).toBe('string');
    expect(logsNamed(record.otlp, 'claude_code.subagent_completed')).toEqual([]);
    // The session's own requests carry no agent_id.
    expect(logsNamed(record.otlp, 'claude_code.api_request').map((e) => e.attributes.agent_id ?? null)).toEqual([null, null, null]);
  });

  it('three levels: each subagent names its parent by parent_agent_id, and each reports subagent_completed, innermost first', () => {
    const record = runs.get('subagent-nested.json-out.otlp-json.default-retries');
    expect(record.apiRequests).toHaveLength(8);
    const completed = logsNamed(record.otlp, 'claude_code.subagent_completed').map((e) => [e.attributes.agent_id, e.attributes.parent_agent_id ?? null]);
    expect(completed).toHaveLength(3);
    const [inner, middle, outer] = completed as [unknown[], unknown[], unknown[]];
    expect(outer[1]).toBeNull();
    expect(middle[1]).toBe(outer[0]);
    expect(inner[1]).toBe(middle[0]);
    // Subagents run in the background for the session only: the session's Agent call returns at once.
    expect(linesOfKind(record.result.stdout, 'system/task_started').length).toBeGreaterThanOrEqual(1);
  });

  it('the permission hook: hook_execution_start is exported while it holds; the span and tool_decision then say reject by hook; no hook_execution_complete', () => {
    const record = runs.get('permission-hook-denies.json-out.otlp-json.default-retries');
    const [start] = logsNamed(record.otlp, 'claude_code.hook_execution_start');
    expect(start?.attributes).toMatchObject({ hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash' });
    const [decision] = logsNamed(record.otlp, 'claude_code.tool_decision');
    expect(decision?.attributes).toMatchObject({ decision: 'reject', source: 'hook', tool_name: 'Bash' });
    // The pending prompt reached the receiver before its decision did: in an earlier export.
    expect(start!.exportSeq).toBeLessThan(decision!.exportSeq);
    const [span] = spansNamed(record.otlp, 'claude_code.tool.blocked_on_user');
    expect(span?.attributes).toMatchObject({ decision: 'reject', source: 'hook' });
    expect(Number(span!.attributes.duration_ms)).toBeGreaterThanOrEqual(PERMISSION_HOOK_HOLD_S * 1000);
    expect(logsNamed(record.otlp, 'claude_code.hook_execution_complete')).toEqual([]);
    expect(linesOfKind(record.result.stdout, 'system/permission_denied')).toHaveLength(1);
  });

  shapeTests('claude-code', runs);
});
