import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { openStore } from '../store/index.js';
import { JournalBuilder } from '../store/testing/journal-builder.js';
import { undoMigrationsAfter } from '../store/testing/undo-migrations.js';
import { tempDirs } from '../testing/temp-dirs.js';
import type { CliIo } from './io.js';
import { ExitCode } from './io.js';
import { main } from './main.js';
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
  events.map((e) => (e.type === 'attemptFailed' || e.type === 'attemptSucceeded' ? { ...e, usage: { source: 'result', inputTokens: 10, outputTokens: 1, costUsd } } : e));

describe('hivewatch flows', () => {
  it('shows a failing flow as failing beside its check badge, and a broken file as check errors', async () => {
    const dir = tempDir('hw-cli-flows-');
    const db = join(dir, 'hivewatch.db');
    mkdirSync(join(dir, 'flows'));
    writeFileSync(join(dir, 'flows', 'failing.prose'), GOOD);
    writeFileSync(join(dir, 'flows', 'broken.prose'), BROKEN);
    writeFileSync(join(dir, 'flows', 'idle.prose'), GOOD);
    const store = await openStore({ path: db });
    const ok = new JournalBuilder('ok-1', { flow: 'user/broken.prose', flowName: 'broken', start: NOW - 3_600_000, tick: 2000 }).start().runStep([{ attempts: ['ok'] }]).complete();
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
    expect(byKey.get('user/failing.prose')).toMatchObject({ check: 'ok', health: { lastRun: { status: 'failed', id: 'fail-5' }, successRate: 0, ended: { failed: 6 } } });
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
