import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../store/index.js';
import { retryLimit } from '../../store/testing/failure-journals.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';

/**
 * `hivewatch errors --failures`, `errors --by handled` and `runs` through the real binary
 * (dist/, built by the test setup) on a database of real runs of the examples (the fake runtime,
 * a virtual clock) and of journals the test writes.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');

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

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-failures-'));
  db = join(dir, 'history.db');
  // Two runs that fail (05 rethrows a caught crash) and one that completes.
  for (const example of ['05-try-catch-finally', '05-try-catch-finally', '01-happy-path']) {
    const run = await hivewatch(['run', `examples/${example}.prose`, '--virtual-clock']);
    expect(run.code, run.stderr).toBe(example.startsWith('05') ? 1 : 0);
  }
  // A run that gave up after three timeouts, written now (so `--since 24h` finds it).
  const store = openSqliteStore({ path: db });
  store.appendEvents(retryLimit('run_gave_up', 'chained', { start: Date.now() - 60_000 }).events);
  // A run that timed out once, was retried and completed: its error was handled.
  const recovered = new JournalBuilder('run_recovered', { start: Date.now() - 120_000 }).start();
  store.appendEvents(recovered.runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }, 'ok'] }]).complete().events);
  store.close();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hivewatch errors --failures and runs: the failure model on the command line', () => {
  it('errors --failures --json: one failure per failed run, by ending code with its root cause', async () => {
    const result = await hivewatch(['errors', '--failures', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      total: 3,
      rows: [
        { key: 'RUNTIME_CRASHED', count: 2, label: null, rootCode: 'RUNTIME_CRASHED' },
        { key: 'POLICY_RETRY_LIMIT_EXCEEDED', count: 1, label: null, rootCode: 'RUNTIME_TIMEOUT' },
      ],
    });
    const byRoot = JSON.parse((await hivewatch(['errors', '--failures', '--by', 'rootCode', '--since', '24h', '--json'])).stdout) as unknown;
    expect(byRoot).toEqual({
      total: 3,
      rows: [
        { key: 'RUNTIME_CRASHED', count: 2, label: null },
        { key: 'RUNTIME_TIMEOUT', count: 1, label: null },
      ],
    });
    const byFlow = JSON.parse((await hivewatch(['errors', '--failures', '--by', 'flow', '--json'])).stdout) as {
      total: number;
      rows: { key: string; label: string }[];
    };
    expect(byFlow.rows.map((r) => [r.key, r.label])).toEqual([
      ['examples/05-try-catch-finally.prose', '05-try-catch-finally'],
      ['flows/failing.prose', 'failing'],
    ]);
    const policy = JSON.parse((await hivewatch(['errors', '--failures', '--category', 'policy', '--json'])).stdout) as { total: number };
    expect(policy.total).toBe(1);
  });

  it('errors --failures as a table, with the total under its own name', async () => {
    const result = await hivewatch(['errors', '--failures']);
    expect(result.stdout.split('\n')).toEqual([
      'CODE                         ROOT CAUSE       FAILURES',
      'RUNTIME_CRASHED              RUNTIME_CRASHED  2',
      'POLICY_RETRY_LIMIT_EXCEEDED  RUNTIME_TIMEOUT  1',
      '3 failures (one per run that ended failed)',
      '',
    ]);
  });

  it('errors --by handled: occurrences by disposition (the rethrown crashes and the retry limit chain are unhandled)', async () => {
    const result = await hivewatch(['errors', '--by', 'handled', '--json']);
    expect(result.code, result.stderr).toBe(0);
    // 05: download crash handled + rethrown deploy crash unhandled, twice; the retry limit: 2 retried
    // timeouts handled, the last timeout and POLICY_RETRY_LIMIT_EXCEEDED unhandled; the recovered run's timeout handled.
    expect(JSON.parse(result.stdout)).toEqual([
      { key: 'handled', count: 5, label: null },
      { key: 'unhandled', count: 4, label: null },
    ]);
  });

  it('runs leads a failed run with its root cause and how it gave up; --json carries endingError', async () => {
    const table = await hivewatch(['runs']);
    const gaveUp = table.stdout.split('\n').find((line) => line.startsWith('run_gave_up'));
    expect(gaveUp).toMatch(/ failed .* RUNTIME_TIMEOUT in task 1:0 attempt 3 · runtime_timeout in 1:0 — gave up after 3 attempts$/);
    // The rethrown crash of 05: caught, then thrown on by a bare `throw`.
    const rethrown = table.stdout.split('\n').filter((line) => / failed /.test(line) && !line.startsWith('run_gave_up'));
    expect(rethrown).toHaveLength(2);
    for (const line of rethrown) expect(line).toMatch(/ RUNTIME_CRASHED in task \d+:\d+ attempt 1 · .* — caught and rethrown$/);
    // A completed run names no error code, whatever its handled errors were.
    const completed = table.stdout.split('\n').filter((line) => line.startsWith('run_recovered'));
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatch(/ completed .* 1 error\s*$/);
    const json = JSON.parse((await hivewatch(['runs', '--json'])).stdout) as {
      runs: { id: string; status: string; endingError: { code: string; rootCode: string; chain: unknown[] } | null }[];
    };
    // Newest first: the example runs, then the run written as started a minute before them.
    expect(json.runs.map((r) => [r.status, r.endingError?.code ?? null, r.endingError?.rootCode ?? null, r.endingError?.chain.length ?? 0])).toEqual([
      ['completed', null, null, 0],
      ['failed', 'RUNTIME_CRASHED', 'RUNTIME_CRASHED', 1],
      ['failed', 'RUNTIME_CRASHED', 'RUNTIME_CRASHED', 1],
      ['failed', 'POLICY_RETRY_LIMIT_EXCEEDED', 'RUNTIME_TIMEOUT', 2],
      ['completed', null, null, 0],
    ]);
  });

  it('refuses a dimension failures do not have, and --failures with --groups', async () => {
    const bad = await hivewatch(['errors', '--failures', '--by', 'task']);
    expect([bad.code, bad.stderr]).toEqual([64, 'hivewatch errors: --by must be one of code, rootCode, category, origin, flow with --failures, got "task"\n']);
    const both = await hivewatch(['errors', '--failures', '--groups']);
    expect([both.code, both.stderr]).toEqual([64, 'hivewatch errors: --failures and --groups are two views; give one\n']);
    const help = await hivewatch(['help']);
    expect(help.stdout).toContain('hivewatch errors --failures [--by code|rootCode|category|origin|flow] [--since 24h] [--json]');
  });
});
