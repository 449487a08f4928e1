import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/index.js';
import { usageLimitWait } from '../store/testing/usage-limit-journal.js';
import { JournalBuilder } from '../store/testing/journal-builder.js';

/**
 * `hivewatch runs --status waiting-limit` through the real binary (dist/, built by the test
 * setup): the runs waiting for a usage limit's reset, with `waitingUntil` in `--json` and the
 * reset in the table's status.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const RESET = Date.UTC(2026, 10, 26, 14, 5, 0);

let dir: string;
let db: string;

function hivewatch(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, '--db', db], { env: { ...process.env, HIVEWATCH_DB: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-waiting-limit-'));
  db = join(dir, 'history.db');
  const store = openSqliteStore({ path: db });
  store.appendEvents(usageLimitWait('run_limited', { start: T0, resetAt: RESET }).events);
  store.appendEvents(usageLimitWait('run_backoff', { start: T0, resetAt: RESET, usageLimit: false }).events);
  store.appendEvents(new JournalBuilder('run_done', { start: T0 }).start().runStep([{ attempts: ['ok'] }]).complete().events);
  store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hivewatch runs --status waiting-limit', () => {
  it('--json lists only the waiting run, with waitingUntil; every run carries the field', async () => {
    const waiting = await hivewatch(['runs', '--status', 'waiting-limit', '--json']);
    expect(waiting.code, waiting.stderr).toBe(0);
    const runs = (JSON.parse(waiting.stdout) as { runs: { id: string; status: string; waitingUntil: number | null }[] }).runs;
    expect(runs.map((r) => [r.id, r.status, r.waitingUntil])).toEqual([['run_limited', 'running', RESET]]);
    const every = JSON.parse((await hivewatch(['runs', '--json'])).stdout) as { runs: { id: string; waitingUntil: number | null }[] };
    expect(Object.fromEntries(every.runs.map((r) => [r.id, r.waitingUntil]))).toEqual({ run_limited: RESET, run_backoff: null, run_done: null });
  });

  it('the table says until when the run waits; a status beside it widens the list', async () => {
    const table = await hivewatch(['runs', '--status', 'completed,waiting-limit']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/run_limited\s+running, waiting for the usage limit to reset at 2026-11-26 14:05:00 UTC/);
    expect(table.stdout).toContain('run_done');
    expect(table.stdout).not.toContain('run_backoff');
  });

  it('refuses a status it does not know', async () => {
    const bad = await hivewatch(['runs', '--status', 'waiting']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown run status "waiting"/);
  });
});
