import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../../store/index.js';
import { usageLimitWait } from '../../store/testing/usage-limit-journal.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { writeCliStandIn } from '../../testing/cli-stand-in.js';

/**
 * `hivewatch runs --status waiting-limit` through the real binary (dist/, built by the test
 * setup): the runs waiting for a usage limit's reset, with `waitingUntil` in `--json` and the
 * reset in the table's status.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
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
  store.appendEvents(
    new JournalBuilder('run_done', { start: T0 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete().events,
  );
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
    expect(bad.code).toBe(64);
    expect(bad.stderr).toBe(
      'hivewatch runs: --status must be one or more (comma-separated) of queued, running, cancelling, completed, failed, cancelled, interrupted, waiting-limit, waiting-approval, got "waiting"\n',
    );
  });
});

/** Claude Code's session-limit result with a reset an hour from now, as the claude-code preset reads it. */
const STAND_IN = `
const at = new Date(Date.now() + 3_600_000);
const h = at.getUTCHours();
const wall = (h % 12 === 0 ? 12 : h % 12) + ':' + String(at.getUTCMinutes()).padStart(2, '0') + (h < 12 ? 'am' : 'pm');
const result = "You've reached your session limit · resets " + wall + ' (UTC)';
process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result, permission_denials: [] }));
process.exitCode = 1;
`;

describe('hivewatch run waiting for a usage limit, cancelled from the terminal', () => {
  it('says until when it waits, and Ctrl-C ends the run at once (exit 3), not at the reset', async () => {
    const claude = writeCliStandIn(dir, 'claude', STAND_IN);
    const flow = join(dir, 'limited.prose');
    writeFileSync(flow, `agent coder:\n  runtime: "claude-code"\n  command: "${claude}"\n\nsession: coder (retry: 2)\n  prompt: "Fix the flaky test"\n`);
    const child = spawn(process.execPath, [BIN, 'run', flow, '--db', join(dir, 'terminal.db')], { env: { ...process.env, HIVEWATCH_DB: '' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await vi.waitFor(
      () =>
        expect(out).toMatch(
          /⏸ .* waiting for the usage limit to reset at \S+ \(reported: "You've reached your session limit · resets .*"\); Ctrl-C cancels now/,
        ),
      {
        timeout: 30_000,
        interval: 50,
      },
    );
    child.kill('SIGINT');
    expect(await exited).toBe(3);
    expect(out).toMatch(/■ cancelled/);
    expect(out.match(/attempt \d\/3/g)).toEqual(['attempt 1/3']);
  });
});
