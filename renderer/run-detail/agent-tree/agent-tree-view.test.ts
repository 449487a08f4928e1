import { describe, expect, it } from 'vitest';
import type { AgentTreeNodeView, UsageTotalsView } from '../../../core/service/api.js';
import { nestTree, nodeLabel, spendWords } from './agent-tree-view.js';

const usage = (costUsd: number): UsageTotalsView => ({
  attempts: 1,
  failedAttempts: 0,
  inputTokens: 10,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd,
  failedCostUsd: 0,
  unknownCostAttempts: 0,
});
const node = (runId: string, parentRunId: string | null, own: number | null, subagents: number | null = null): AgentTreeNodeView => ({
  runId,
  parentRunId,
  agentId: parentRunId === null ? null : `agent-${runId}-0123456789`,
  agentName: runId === 'b' ? null : 'Explore',
  depth: 0,
  name: `run ${runId}`,
  status: 'completed',
  startedAt: 0,
  endedAt: 1,
  attempts: 1,
  errorCount: 0,
  own: own === null ? null : usage(own),
  subagents: subagents === null ? null : usage(subagents),
  total: own === null && subagents === null ? null : usage((own ?? 0) + (subagents ?? 0)),
});

describe('the agent tree as drawn', () => {
  it('nests children under their parents; a node whose parent is missing hangs under the root', () => {
    const root = nestTree({ rootRunId: 'r', nodes: [node('r', null, 1), node('a', 'r', 0.5), node('b', 'a', 0.25), node('lost', 'gone', 0.1)] });
    expect(root?.node.runId).toBe('r');
    expect(root?.children.map((c) => c.node.runId)).toEqual(['a', 'lost']);
    expect(root?.children[0]?.children.map((c) => c.node.runId)).toEqual(['b']);
    expect(nestTree({ rootRunId: 'none', nodes: [node('r', null, 1)] })).toBeNull();
  });

  it("says its own spend and its subagents' apart, their sum only when both spent", () => {
    expect(spendWords(node('r', null, 1, 0.375))).toEqual({ own: '$1.00', subagents: '$0.38', total: '$1.38' });
    expect(spendWords(node('a', 'r', 0.5))).toEqual({ own: '$0.50', subagents: null, total: null });
    expect(spendWords(node('r', null, null, 0.25))).toEqual({ own: null, subagents: '$0.25', total: null });
  });

  it('labels a subagent by its kind and id, the root by its session', () => {
    expect(nodeLabel(node('r', null, 1))).toBe('run r');
    expect(nodeLabel(node('a', 'r', 1))).toBe('Explore · agent-a-');
    expect(nodeLabel(node('b', 'r', 1))).toBe('subagent agent-b-');
  });

  it("tells Codex threads spawned within a minute apart: a time-ordered id's random end follows its clock", () => {
    // Version 7 ids as Codex makes them for a session's threads (agents-real/fixtures/codex-cli/subagent-nested…): the same first eight digits.
    const thread = (agentId: string): AgentTreeNodeView => ({ ...node('b', 'r', 1), agentId });
    const labels = ['01a2285a-e15c-7dc3-9691-3c3ea8a1f7b1', '01a2285a-f3d2-7b10-8e4e-5b1d9c2a0e64'].map((id) => nodeLabel(thread(id)));
    expect(labels).toEqual(['subagent 01a2285a…a8a1f7b1', 'subagent 01a2285a…9c2a0e64']);
  });
});
