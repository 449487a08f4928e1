import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openSqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { readApi } from '../read-api.js';

/**
 * The agent tree through the read API (what the window reads): a run's detail carries the tree
 * it belongs to and its own links; the Runs list's summaries say which run started a subagent's
 * run and how many each started; a run alone carries none of it.
 */

const T0 = Date.UTC(2026, 10, 29, 2, 0, 0);
let dir: string;
let store: HivewatchStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-agent-tree-api-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (cost: string, agent: Record<string, string> = {}): [string, Record<string, string>] => [
  'api_request',
  { 'prompt.id': 'p1', model: 'claude-opus-5-5', input_tokens: '100', output_tokens: '10', cost_usd: cost, duration_ms: '20', ...agent },
];

describe('agent trees in the read API', () => {
  it('puts the tree on every run of it and the links on the Runs list; a run alone has neither', async () => {
    const ingester = new OtelIngester(store, { now: () => T0 + 60_000, quietMs: 60_000 });
    await ingester.ingest(
      claudeCodeLogs(
        [
          request('0.5'),
          request('0.25', { agent_id: 'agent-a', 'agent.name': 'Explore' }),
          request('0.125', { agent_id: 'agent-b', parent_agent_id: 'agent-a' }),
        ],
        'tree0001',
        T0,
      ),
      'tree',
    );
    await ingester.ingest(claudeCodeLogs([request('2')], 'solo0001', T0), 'alone');
    const api = readApi(store, () => Promise.resolve(null));

    const items = (await api.listRuns({ limit: 10 })).items;
    const byName = (prefix: string) => items.find((r) => r.flowName.startsWith(prefix))!;
    const [main, a, b, alone] = [
      byName('Claude Code session tree0001'),
      byName('Explore subagent'),
      byName('subagent agent-b · Claude Code'),
      byName('Claude Code session solo0001'),
    ];
    expect([main.subagents, main.spawnedBy]).toEqual([1, undefined]);
    expect([a.subagents, a.spawnedBy]).toEqual([1, main.id]);
    expect([b.subagents, b.spawnedBy]).toEqual([undefined, a.id]);
    expect([alone.subagents, alone.spawnedBy]).toEqual([undefined, undefined]);

    const detail = (await api.getRun({ runId: b.id }))!;
    expect([detail.run.spawnedBy, detail.run.subagents]).toEqual([a.id, undefined]);
    expect(detail.agentTree?.rootRunId).toBe(main.id);
    expect(detail.agentTree?.nodes.map((n) => [n.runId, n.depth, n.own?.costUsd, n.subagents?.costUsd ?? null, n.total?.costUsd])).toEqual([
      [main.id, 0, 0.5, 0.375, 0.875],
      [a.id, 1, 0.25, 0.125, 0.375],
      [b.id, 2, 0.125, null, 0.125],
    ]);
    expect((await api.getRun({ runId: main.id }))?.run.subagents).toBe(1);
    const single = (await api.getRun({ runId: alone.id }))!;
    expect(single.agentTree).toBeUndefined();
    expect(single.run.spawnedBy).toBeUndefined();
  });
});
