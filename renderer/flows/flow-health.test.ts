import { describe, expect, it } from 'vitest';
import type { FlowHealthView, FlowInfo } from '../../core/service/api.js';
import { ariaSort, flowRows, nextSort, sortRows, successText, waitedParts } from './flow-health.js';

/** The Flows list's rows: catalog flows with their health, flows with runs only, and the sorts. */

const info = (id: string, over: Partial<FlowInfo> = {}): FlowInfo => ({
  id,
  name: id.replace(/^.*\/|\.prose$/g, ''),
  path: `/x/${id}`,
  bundled: id.startsWith('examples/'),
  source: '',
  ok: true,
  diagnostics: [],
  sessions: 1,
  repo: null,
  highlight: [],
  ...over,
});
const none = { attempts: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unknownCostAttempts: 0 };
const health = (flow: string, over: Partial<FlowHealthView> = {}): FlowHealthView => ({
  flow,
  flowName: flow,
  lastRun: null,
  ended: { completed: 0, failed: 0, cancelled: 0, interrupted: 0 },
  successRate: null,
  p50DurationMs: null,
  cost: { failed: none, retried: none, succeeded: none },
  ...over,
});

describe('the Flows list', () => {
  it('puts a flow whose newest run failed first, though its file checks; runs-only flows get their own section', () => {
    const flows = [info('user/steady.prose'), info('user/nightly.prose'), info('user/broken.prose', { ok: false })];
    const rows = flowRows(flows, [
      health('user/steady.prose', {
        lastRun: { id: 's', status: 'completed', startedWall: 1 },
        ended: { completed: 4, failed: 1, cancelled: 0, interrupted: 0 },
        successRate: 0.8,
      }),
      health('user/nightly.prose', {
        lastRun: { id: 'n', status: 'failed', startedWall: 2 },
        ended: { completed: 0, failed: 6, cancelled: 0, interrupted: 0 },
        successRate: 0,
      }),
      health('external:claude-code', { flowName: 'Claude Code sessions', lastRun: { id: 'e', status: 'completed', startedWall: 3 } }),
    ]);
    expect(rows.map((r) => [r.id, r.section])).toEqual([
      ['user/steady.prose', 'yours'],
      ['user/nightly.prose', 'yours'],
      ['user/broken.prose', 'yours'],
      ['external:claude-code', 'others'],
    ]);
    expect(sortRows(rows, { key: 'last', descending: false }).map((r) => r.id)).toEqual([
      'user/nightly.prose',
      'user/steady.prose',
      'external:claude-code',
      'user/broken.prose',
    ]);
    expect(sortRows(rows, { key: 'check', descending: false })[0]?.id).toBe('user/broken.prose');
    expect(sortRows(rows, { key: 'success', descending: false })[0]?.id).toBe('user/nightly.prose');
    expect(sortRows(rows, { key: 'failures', descending: true })[0]?.id).not.toBe('user/nightly.prose');
    expect(successText(rows[0]?.health ?? null)).toBe('80% (4 of 5)');
    expect(successText(null)).toBe('—');
  });

  it("says the time a flow's runs waited on a person's approval and how many wait now, and sorts the flows waiting now first", () => {
    const waits = (flow: string, waitedMs: number, runs: number, waitingNow: number): FlowHealthView =>
      health(flow, { approval: { waitedMs, runs, waitingNow } });
    const rows = flowRows(
      [info('user/quiet.prose'), info('user/asks.prose'), info('user/old.prose')],
      [
        waits('user/asks.prose', 12 * 60_000 + 59_000, 1, 0),
        waits('user/old.prose', 0, 0, 2),
        health('external:claude-code', { approval: { waitedMs: 3 * 3_600_000 + 5 * 60_000, runs: 4, waitingNow: 1 } }),
      ],
    );
    const parts = Object.fromEntries(rows.map((r) => [r.id, waitedParts(r.health)]));
    expect(parts).toEqual({
      'user/quiet.prose': { waited: null, runs: null, now: null },
      'user/asks.prose': { waited: '12 min', runs: 'in 1 run', now: null },
      'user/old.prose': { waited: null, runs: null, now: '2 waiting now' },
      'external:claude-code': { waited: '3 h 5 min', runs: 'in 4 runs', now: '1 waiting now' },
    });
    // An older producer's health without the figure reads as none.
    expect(waitedParts(health('user/x.prose'))).toEqual({ waited: null, runs: null, now: null });
    expect(sortRows(rows, { key: 'waited', descending: false }).map((r) => r.id)).toEqual([
      'user/old.prose',
      'external:claude-code',
      'user/asks.prose',
      'user/quiet.prose',
    ]);
    expect(sortRows(rows, { key: 'waited', descending: true }).map((r) => r.id)).toEqual([
      'user/quiet.prose',
      'user/asks.prose',
      'external:claude-code',
      'user/old.prose',
    ]);
    expect(ariaSort({ key: 'waited', descending: false }, 'waited')).toBe('descending');
  });

  it('flips a column clicked twice and says the order to screen readers', () => {
    const byFailures = nextSort({ key: 'last', descending: false }, 'failures');
    expect(byFailures).toEqual({ key: 'failures', descending: false });
    expect(ariaSort(byFailures, 'failures')).toBe('descending');
    expect(ariaSort(nextSort(byFailures, 'failures'), 'failures')).toBe('ascending');
    expect(ariaSort(byFailures, 'name')).toBe('none');
    expect(ariaSort({ key: 'name', descending: false }, 'name')).toBe('ascending');
  });
});
