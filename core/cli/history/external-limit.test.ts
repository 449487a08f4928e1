import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeOtlp } from '../../otel/receive/decode.js';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { openStore } from '../../store/index.js';
import { usageLimitSession } from '../../testing/usage-limit-otlp.js';

/**
 * An external Claude Code session stopped by its usage limit (core/testing/usage-limit-otlp.ts,
 * from the Claude Code 2.1.332 recording) through the real binary (dist/, built by the test
 * setup): `runs --status waiting-limit` lists it with what ends the stop, and `cancel` stops
 * watching it.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
/** "resets 3:17am (UTC)", read against the recorded failure at 2026-11-26T01:17:43.528Z: the end of that minute. */
const RESET_AT = Date.parse('2026-11-26T03:18:00Z');

let dir: string;
let db: string;
let runId: string;

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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-external-limit-'));
  db = join(dir, 'history.db');
  const store = await openStore({ path: db });
  const session = usageLimitSession();
  const ingester = new OtelIngester(store, { now: () => session.failedAt + 60_000 });
  for (const [i, p] of session.payloads.entries()) await ingester.ingest(decodeOtlp(p.signal, 'json', p.body), `limit#${i}`);
  runId = (await store.listRuns({ limit: 5 })).runs[0]!.id;
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an external session stopped by its usage limit, from the CLI', () => {
  it('runs --status waiting-limit lists it with until when and what ends the stop', async () => {
    const json = await hivewatch(['runs', '--status', 'waiting-limit', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const runs = (JSON.parse(json.stdout) as { runs: { id: string; status: string; waitingUntil: number | null }[] }).runs;
    expect(runs.map((r) => [r.id, r.status, r.waitingUntil])).toEqual([[runId, 'running', RESET_AT]]);
    const table = await hivewatch(['runs', '--status', 'waiting-limit']);
    expect(table.stdout).toContain('running, stopped by the usage limit until 2026-11-26 03:18:00 UTC (it continues when the agent sends telemetry again)');
  });

  it('cancel stops watching it: the run ends cancelled and leaves the waiting-limit list', async () => {
    const cancel = await hivewatch(['cancel', runId, '--yes', '--json']);
    expect(cancel.code, `${cancel.stdout}${cancel.stderr}`).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ action: 'cancel', done: 1, refused: 0 });
    const after = JSON.parse((await hivewatch(['runs', '--json'])).stdout) as { runs: { id: string; status: string; waitingUntil: number | null }[] };
    expect(after.runs.map((r) => [r.id, r.status, r.waitingUntil])).toEqual([[runId, 'cancelled', null]]);
    // Nothing is stopped any more: a second cancel is refused with the words for an external run.
    const again = await hivewatch(['cancel', runId, '--yes', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ done: 0, refused: 1 });
  });
});
