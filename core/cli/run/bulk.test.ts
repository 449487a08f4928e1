import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BulkResult } from '../../service/api.js';
import { EXAMPLES_DIR } from '../../service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../../service/service.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * `hivewatch cancel|retry --where … | RUN_ID…` through the real binary, on a
 * database where this test's service hosts runs that stay running (a minute-long fake session),
 * so the CLI's cancels reach them through the journal as they would reach the app's runs. The
 * prompt is driven in-process, with a terminal-like stdin.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
const SLOW = `agent worker:\n  runtime: "fake"\n\nsession: worker\n  prompt: "Slow"\n  simulate: "slow:60s"\n`;
const QUICK = `agent worker:\n  runtime: "fake"\n\nsession: worker\n  prompt: "Quick"\n  simulate: "ok"\n`;
const KEYS = 'status, flow, text, code, category, anyCode, anyCategory, since';

const tempDir = tempDirs();
let db: string;
let store: HivewatchStore;
let host: HivewatchService;

function hivewatch(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, '--db', db], { env: { ...process.env, HIVEWATCH_DB: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function running(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await host.startRun({ flow: 'user/slow.prose' })).runId);
  for (const id of ids) await expect.poll(async () => (await store.getRunRow(id))?.status, { timeout: 20_000 }).toBe('running');
  return ids;
}

const statusOf = async (runId: string): Promise<string | undefined> => (await store.getRunRow(runId))?.status;

beforeEach(async () => {
  const dir = tempDir('hw-cli-bulk-');
  db = join(dir, 'hivewatch.db');
  // `user/…` keys resolve in `flows/` beside the database, for the CLI as for the app.
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'slow.prose'), SLOW);
  writeFileSync(join(dir, 'flows', 'quick.prose'), QUICK);
  store = await openStore({ path: db });
  host = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: join(dir, 'flows'), clock: 'real', tailIntervalMs: 10 });
});
afterEach(async () => {
  await host.close({ timeoutMs: 5_000 });
  await store.close();
});

describe('hivewatch cancel|retry --where', () => {
  it('refuses an unknown --where key with the allowed keys, and a bad status with the schema’s words', async () => {
    const bad = await hivewatch(['cancel', '--where', 'status=running&owner=me']);
    expect(bad).toMatchObject({ code: 64, stdout: '' });
    expect(bad.stderr).toBe(`hivewatch cancel: --where: unknown key "owner"; allowed keys: ${KEYS}\n`);
    const status = await hivewatch(['cancel', '--where', 'status=sleeping', '--all', '--yes']);
    expect(status.code).toBe(64);
    expect(status.stderr).toBe(
      'hivewatch cancel: --where: status[0]: must be one of queued, running, cancelling, completed, failed, cancelled, interrupted, waiting-limit, waiting-approval\n',
    );
  });

  it('without --yes and without a terminal, prints what it would do, does nothing, and says how to go ahead', async () => {
    const ids = await running(2);
    const result = await hivewatch(['cancel', '--where', 'status=running&flow=user/slow.prose']);
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      'hivewatch cancel: 2 runs match and stdin is not a terminal, so nothing was asked and nothing was done; add --yes to cancel them\n',
    );
    for (const id of ids) expect(result.stdout).toContain(`  cancel     ${id}\n`);
    expect(result.stdout.endsWith('2 would be cancelled, 0 refused\n')).toBe(true);
    for (const id of ids) expect(await statusOf(id)).toBe('running');
    await host.bulkRuns({ action: 'cancel', runIds: ids });
  });

  it('--yes --json: one cancel per run with its command id, a refusal with its reason, exit 1 for the refusal', async () => {
    const ids = await running(2);
    await store.appendEvents(
      new JournalBuilder('done-1', { flow: 'user/slow.prose', flowName: 'slow' })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete().events,
    );
    const result = await hivewatch(['cancel', ...ids, 'done-1', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(1);
    const answer = JSON.parse(result.stdout) as BulkResult;
    expect(answer).toMatchObject({ action: 'cancel', dryRun: false, matched: 3, done: 2, refused: 1 });
    expect(answer.results.map((r) => [r.runId, r.outcome])).toEqual([
      [ids[0], 'done'],
      [ids[1], 'done'],
      ['done-1', 'refused'],
    ]);
    expect(answer.results[2]?.message).toBe('run done-1 is completed; nothing to cancel');
    for (const id of ids) await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('cancelled');
    for (const r of answer.results.slice(0, 2)) {
      const requested = (await store.getEvents(r.runId, 0, 1_000)).filter((e) => e.type === 'cancelRequested');
      expect(requested.map((e) => (e as { commandId?: string }).commandId)).toEqual([r.commandId]);
    }
  });

  it('asks on a terminal and cancels on "y"', async () => {
    const ids = await running(2);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let out = '';
    let err = '';
    const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), stdout: new PassThrough(), env: { ...process.env, HIVEWATCH_DB: '' }, stdin };
    stdin.write('y\n');
    const code = await main(['cancel', ...ids, '--db', db], io);
    expect(code, err).toBe(0);
    expect(out).toContain('2 would be cancelled, 0 refused\n');
    expect(out.endsWith('2 cancelled, 0 refused\n')).toBe(true);
    for (const id of ids) await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('cancelled');
  });

  it('retry --where … --yes --json starts a new run of each match here and waits for it to end', async () => {
    await store.appendEvents(
      new JournalBuilder('failed-1', { flow: 'user/quick.prose', flowName: 'quick', start: Date.now() })
        .start()
        .runStep([{ attempts: [{ code: 'RUNTIME_CRASHED', origin: 'runtime:fake' }] }])
        .fail().events,
    );
    const result = await hivewatch(['retry', '--where', 'status=failed&flow=user/quick.prose', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as BulkResult & { newRunEndings: Record<string, string> };
    expect(answer).toMatchObject({ action: 'retry', matched: 1, done: 1, refused: 0 });
    const newRunId = answer.results[0]?.newRunId as string;
    expect(answer.newRunEndings).toEqual({ [newRunId]: 'completed' });
    expect((await store.getRunRow(newRunId))?.retryOf).toBe('failed-1');
  });
});
