import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/temp-dirs.js';

/**
 * The `--json` outputs scripts parse, key by key in their order, through the real binary on a
 * database of real runs (the fake runtime, a virtual clock): the history's own rows where the CLI
 * prints them (the error rollups, a replay or prune report, the runs an issue hit).
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');
const tempDir = tempDirs();
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

async function json(args: string[]): Promise<unknown> {
  const result = await hivewatch([...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

const keys = (value: unknown): string[] => Object.keys(value as object);

let failedRun: string;

beforeAll(async () => {
  db = join(tempDir('hw-cli-json-'), 'history.db');
  // 05 rethrows a caught crash: a failed run with errors, and an issue.
  const run = await hivewatch(['run', 'examples/05-try-catch-finally.prose', '--virtual-clock']);
  expect(run.code, run.stderr).toBe(1);
  failedRun = ((await json(['runs'])) as { runs: { id: string }[] }).runs[0]?.id ?? '';
}, 120_000);

describe('the CLI --json shapes', () => {
  it('errors --groups and --by task: the rollups rows as the history keeps them', async () => {
    const groups = (await json(['errors', '--groups'])) as unknown[];
    expect(groups.length).toBeGreaterThan(0);
    expect(keys(groups[0])).toEqual(['fingerprint', 'category', 'code', 'origin', 'template', 'lastMessage', 'count', 'unhandled', 'firstSeen', 'lastSeen']);
    const tasks = (await json(['errors', '--by', 'task'])) as unknown[];
    expect(tasks.length).toBeGreaterThan(0);
    expect(keys(tasks[0])).toEqual(['key', 'count', 'label', 'runId', 'taskId']);
  });

  it('errors: a filter the API refuses is a usage error naming the flag', async () => {
    const bad = await hivewatch(['errors', '--category', 'weather']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/^hivewatch errors: --category: must be one of /);
  });

  it('replay and prune: their reports', async () => {
    expect(await json(['replay', failedRun])).toEqual({ runId: failedRun, ok: true, events: expect.any(Number), diffs: [] });
    const pruned = await json(['prune', '--older-than', '3650d']);
    expect(keys(pruned)).toEqual(['cutoff', 'runs', 'events', 'errors', 'keptForResume']);
    expect(pruned).toMatchObject({ runs: 0, events: 0, errors: 0, keptForResume: 0 });
  });

  it('issues runs: the issue, the run rows that hit it, the next cursor', async () => {
    const [issue] = ((await json(['issues'])) as { issues: { id: string }[] }).issues;
    const page = (await json(['issues', 'runs', issue?.id ?? ''])) as { issue: string; runs: { id: string }[]; nextCursor: unknown };
    expect(keys(page)).toEqual(['issue', 'runs', 'nextCursor']);
    expect([page.issue, page.runs.map((r) => r.id), page.nextCursor]).toEqual([issue?.id, [failedRun], null]);
    expect(keys(page.runs[0])).toEqual(
      keys(((await json(['runs'])) as { runs: object[] }).runs[0]).filter((k) => !['endingError', 'usage', 'telemetrySilence'].includes(k)),
    );
  });
});
