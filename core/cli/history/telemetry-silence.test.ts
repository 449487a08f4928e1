import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { openStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';

/**
 * An open Claude Code session whose exporter went silent, through the real binary (dist/, built by
 * the test setup): `hivewatch runs` says for how long and what was expected, `--json` carries the
 * figure. The binary reads the wall clock, so the session is ingested as last heard 4½ minutes
 * before the test starts, and the assertions hold for any time the binary takes after that.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
const tempDir = tempDirs();

let db: string;
let runId: string;
let lastSeenAt: number;

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
  db = join(tempDir('hw-cli-telemetry-silence-'), 'history.db');
  const store = await openStore({ path: db });
  lastSeenAt = Date.now() - 270_000;
  const ingester = new OtelIngester(store, { now: () => lastSeenAt, quietMs: 3_600_000 });
  runId = (await ingester.ingest(claudeCodeLogs([['user_prompt', { 'prompt.id': 'p-1', prompt_length: '5' }]], 'session-quiet', lastSeenAt - 2_000), null))
    .runIds[0]!;
  await store.close();
});

describe('hivewatch runs: a session whose telemetry stopped', () => {
  it('says how long it has been silent and how often its exporter sends', async () => {
    const json = await hivewatch(['runs', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const [run] = (
      JSON.parse(json.stdout) as {
        runs: { id: string; telemetrySilence: { lastSeenAt: number; silentMs: number; expectedEveryMs: number; origin: string } | null }[];
      }
    ).runs;
    expect(run).toMatchObject({ id: runId, telemetrySilence: { lastSeenAt, expectedEveryMs: 5_000, origin: 'runtime:claude-code' } });
    expect(run!.telemetrySilence!.silentMs).toBeGreaterThanOrEqual(270_000);

    const table = await hivewatch(['runs']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${runId}\\s+running, no telemetry for (\\d+ min|\\d+ h \\d\\d min) \\(expected every 5 s\\)`));
  });
});
