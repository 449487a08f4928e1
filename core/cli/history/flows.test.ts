import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../../base/approval-wait.js';
import type { HivewatchEvent } from '../../base/events.js';
import { openStore } from '../../store/index.js';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { undoMigrationsAfter } from '../../store/testing/undo-migrations.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import type { CliIo } from '../io.js';
import { ExitCode } from '../io.js';
import { main } from '../main.js';
import type { FlowRow } from './flows.js';

/**
 * `hivewatch flows`: a flow whose file checks but whose six newest runs failed reads "check ok"
 * and failing (its newest run failed, 0% success, 6 failures) and leads the list; a flow of the
 * folder whose file does not check reads "check errors" whatever its runs; a flow with no runs is
 * listed too. Real store, real files, the command in process.
 */

const tempDir = tempDirs();

const GOOD = `agent worker:\n  runtime: "fake"\nsession: worker\n  prompt: "do it"\n`;
const BROKEN = `agent worker:\n  runtime: "fake"\nsession: nobody\n  prompt: "do it"\n`;
const SESSIONS = 'external:claude-code';
// The command reads the real clock: the runs are placed against it.
const NOW = Date.now();

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), stdout: new PassThrough(), env: {} };
  const code = await main(args, io);
  return { code, out, err };
}

const withUsage = (events: HivewatchEvent[], costUsd: number): HivewatchEvent[] =>
  events.map((e) =>
    e.type === 'attemptFailed' || e.type === 'attemptSucceeded' ? { ...e, usage: { source: 'result', inputTokens: 10, outputTokens: 1, costUsd } } : e,
  );

describe('hivewatch flows', () => {
  it('shows a failing flow as failing beside its check badge, and a broken file as check errors', async () => {
    const dir = tempDir('hw-cli-flows-');
    const db = join(dir, 'hivewatch.db');
    mkdirSync(join(dir, 'flows'));
    writeFileSync(join(dir, 'flows', 'failing.prose'), GOOD);
    writeFileSync(join(dir, 'flows', 'broken.prose'), BROKEN);
    writeFileSync(join(dir, 'flows', 'idle.prose'), GOOD);
    const store = await openStore({ path: db });
    const ok = new JournalBuilder('ok-1', { flow: 'user/broken.prose', flowName: 'broken', start: NOW - 3_600_000, tick: 2000 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(withUsage(ok.events, 0.5));
    for (let i = 0; i < 6; i += 1) {
      const b = new JournalBuilder(`fail-${i}`, { flow: 'user/failing.prose', flowName: 'failing', start: NOW - 3_000_000 + i * 60_000, tick: 1000 }).start();
      b.runStep([{ attempts: [{ code: 'RUNTIME_CRASHED' }] }]);
      await store.appendEvents(withUsage(b.fail().events, 0.25));
    }
    await store.close();

    const json = await cli(['flows', '--db', db, '--since', '24h', '--json']);
    expect(json.code, json.err).toBe(ExitCode.ok);
    const { flows } = JSON.parse(json.out) as { flows: FlowRow[] };
    const byKey = new Map(flows.map((f) => [f.flow, f]));
    expect(flows[0]!.flow).toBe('user/failing.prose');
    expect(byKey.get('user/failing.prose')).toMatchObject({
      check: 'ok',
      health: { lastRun: { status: 'failed', id: 'fail-5' }, successRate: 0, ended: { failed: 6 } },
    });
    expect(byKey.get('user/failing.prose')!.health.cost.failed.costUsd).toBeCloseTo(1.5, 9);
    expect(byKey.get('user/broken.prose')).toMatchObject({ check: 'errors', health: { lastRun: { status: 'completed' }, successRate: 1 } });
    expect(byKey.get('user/broken.prose')!.problems).toBeGreaterThan(0);
    expect(byKey.get('user/idle.prose')).toMatchObject({ check: 'ok', health: { lastRun: null, successRate: null } });

    const text = await cli(['flows', '--db', db, '--since', '24h']);
    expect(text.out).toMatch(/user\/failing\.prose\s+check ok\s+failed\s+0% \(0\/6\)\s+6\s+.+\$1\.50 · 100% on failure/);
    expect(text.out).toMatch(/user\/broken\.prose\s+check errors \(\d+\)\s+completed\s+100% \(1\/1\)\s+0\s+.+\$0\.50 · 0% on failure/);
    // Outside the window the runs are not counted, but the newest run is still the newest run.
    const longAgo = await cli(['flows', '--db', db, '--since', '1m', '--sort', 'name', '--json']);
    const failing = (JSON.parse(longAgo.out) as { flows: FlowRow[] }).flows.find((f) => f.flow === 'user/failing.prose')!;
    expect(failing.health).toMatchObject({ lastRun: { status: 'failed' }, ended: { failed: 0 }, successRate: null });
  });

  // The command opens the store as every other command does (migrating it): a read-only open of a
  // database an older version left has no outcome tables to read, and of a missing file fails.
  it('reads a database an older version left, and one that does not exist yet', async () => {
    const dir = tempDir('hw-cli-flows-');
    const db = join(dir, 'hivewatch.db');
    const store = await openStore({ path: db });
    const b = new JournalBuilder('old-fail', { flow: 'user/old.prose', flowName: 'old', start: NOW - 600_000, tick: 1000 }).start();
    b.runStep([{ attempts: [{ code: 'RUNTIME_CRASHED' }] }]);
    await store.appendEvents(withUsage(b.fail().events, 0.75));
    await store.close();
    await undoMigrationsAfter(db, 20);

    const old = await cli(['flows', '--db', db, '--since', '24h', '--json']);
    expect(old.code, old.err).toBe(ExitCode.ok);
    const row = (JSON.parse(old.out) as { flows: FlowRow[] }).flows.find((f) => f.flow === 'user/old.prose')!;
    expect(row.health).toMatchObject({ lastRun: { status: 'failed', id: 'old-fail' }, ended: { failed: 1 }, successRate: 0 });
    expect(row.health.cost.failed.costUsd).toBeCloseTo(0.75, 9);

    const fresh = await cli(['flows', '--db', join(dir, 'new', 'hivewatch.db'), '--json']);
    expect(fresh.code, fresh.err).toBe(ExitCode.ok);
    const flows = (JSON.parse(fresh.out) as { flows: FlowRow[] }).flows;
    expect(flows.length).toBeGreaterThan(0);
    expect(flows.every((f) => f.health.lastRun === null)).toBe(true);
  });

  it("says each flow's time waited on a person's approval in the window, and how many of its runs wait now", async () => {
    const dir = tempDir('hw-cli-flows-');
    const db = join(dir, 'hivewatch.db');
    const store = await openStore({ path: db });
    const asking = (id: string, start: number): JournalBuilder => {
      const run = new JournalBuilder(id, { flow: SESSIONS, start, tick: 1000 });
      run.push({
        type: 'runStarted',
        flow: SESSIONS,
        flowName: 'Claude Code session',
        resumedFrom: null,
        retryOf: null,
        resumeStep: 0,
        options: { maxSteps: 100, concurrency: 1, clock: 'real', defaultAgent: 'claude-code' },
        external: { origin: 'runtime:claude-code', sessionId: id, source: 'claude-code 2.1.332' },
      });
      run.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'agent' }] });
      run.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: '1:0', name: 'agent', agent: 'claude-code', maxAttempts: 1 });
      run.push({
        type: 'externalEvent',
        name: APPROVAL_REQUESTED,
        known: true,
        taskId: '1:0',
        attributes: { tool: 'Bash', label: 'Bash', since: run.ts, via: 'claude_code.hook_execution_start' },
      });
      return run;
    };
    for (const [id, waitedMs, start] of [
      ['asked-12', 12 * 60_000, NOW - 7_200_000],
      ['asked-3', 3 * 60_000, NOW - 5_400_000],
    ] as const) {
      const run = asking(id, start);
      run.wait(waitedMs);
      run.push({
        type: 'externalEvent',
        name: APPROVAL_ENDED,
        known: true,
        taskId: '1:0',
        attributes: {
          tool: 'Bash',
          label: 'Bash',
          since: start,
          waitedMs,
          decision: 'accept',
          source: 'user_temporary',
          byPerson: true,
          via: 'claude_code.tool_decision',
        },
      });
      run.push({ type: 'taskSucceeded', step: 1, ordinal: 0, taskId: '1:0', attempts: 0, output: '' });
      await store.appendEvents(run.complete().events);
    }
    // A live session is one the receiver keeps (opening the store interrupts a run no host or receiver keeps): sent as Claude Code sends it.
    const ingester = new OtelIngester(store, { now: () => NOW, quietMs: 10 * 60_000 });
    await ingester.ingest(
      claudeCodeLogs(
        [
          ['user_prompt', { 'prompt.id': 'p-1' }],
          ['hook_execution_start', { 'prompt.id': 'p-1', hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
        ],
        '7e2a9c41-5b3d-4f6e-8a1c-2d3e4f5a6b7c',
        NOW - 600_000,
      ),
      null,
    );
    await store.close();

    const text = await cli(['flows', '--db', db, '--since', '24h', '--sort', 'name']);
    expect(text.code, text.err).toBe(ExitCode.ok);
    const lines = text.out.split('\n');
    const cells = (line: string | undefined): string[] => (line ?? '').trim().split(/ {2,}/);
    expect(cells(lines[1])).toEqual(['FLOW', 'CHECK', 'LAST', 'SUCCESS', 'FAILURES', 'P50', 'WAITED', 'COST']);
    const asks = cells(lines.find((l) => l.startsWith(`${SESSIONS} `)));
    expect(asks).toEqual([
      SESSIONS,
      'session',
      'running',
      '100% (2/2)',
      '0',
      expect.stringMatching(/^\d+(\.\d)? min$/),
      '15.0 min (2 runs) · 1 waiting now',
      '—',
    ]);
    // A flow none of whose runs waited says so, in the same column.
    const others = lines
      .slice(2)
      .filter((l) => l !== '' && !l.startsWith(`${SESSIONS} `))
      .map(cells);
    expect(others.length).toBeGreaterThan(0);
    for (const row of others) expect(row.at(-2), row.join(' | ')).toBe('—');

    const json = JSON.parse((await cli(['flows', '--db', db, '--since', '24h', '--json'])).out) as { flows: FlowRow[] };
    expect(json.flows.find((f) => f.flow === SESSIONS)!.health.approval).toEqual({ waitedMs: 15 * 60_000, runs: 2, waitingNow: 1 });
  });

  it('refuses a malformed --since or --sort with a usage error', async () => {
    const db = join(tempDir('hw-cli-flows-'), 'hivewatch.db');
    const since = await cli(['flows', '--db', db, '--since', 'yesterday']);
    expect(since.code).toBe(ExitCode.usage);
    expect(since.err).toContain('--since must be an age like 30m, 24h or 7d, got "yesterday"');
    const sort = await cli(['flows', '--db', db, '--sort', 'mood']);
    expect(sort.code).toBe(ExitCode.usage);
    expect(sort.err).toContain('--sort must be one of attention, name, failures, success, duration, cost, got "mood"');
  });
});
