import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCostFlow } from '../testing/claude-stand-in.js';
import { ExitCode } from './io.js';

/**
 * `hivewatch cost` and `runs --json` through the real binary (dist/, built by the test setup) on
 * a real run of the claude-code preset against a stand-in CLI: a failed attempt ($0.17), then a
 * successful one ($0.25).
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');
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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-cost-'));
  db = join(dir, 'history.db');
  const run = await hivewatch(['run', writeCostFlow(dir), '--virtual-clock']);
  expect(run.code, run.stderr).toBe(0);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hivewatch cost', () => {
  it('runs --json carries each run\'s totals with the failed share', async () => {
    const out = await hivewatch(['runs', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const { runs } = JSON.parse(out.stdout) as { runs: { usage: Record<string, number> | null }[] };
    expect(runs).toHaveLength(1);
    expect(runs[0]!.usage).toMatchObject({ attempts: 2, failedAttempts: 1, inputTokens: 2700, outputTokens: 320, unknownCostAttempts: 0 });
    expect(runs[0]!.usage!.costUsd).toBeCloseTo(0.42, 10);
    expect(runs[0]!.usage!.failedCostUsd).toBeCloseTo(0.17, 10);
  });

  it('totals per flow, as text and as JSON', async () => {
    const text = await hivewatch(['cost', '--since', '7d']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('$0.42 · $0.17 on failed attempts');
    const json = await hivewatch(['cost', '--json']);
    const { flows } = JSON.parse(json.stdout) as { flows: { flow: string; attempts: number }[] };
    expect(flows.map((f) => [f.flow.endsWith('cost.prose'), f.attempts])).toEqual([[true, 2]]);
  });

  it('lists the costliest runs with --by run, and refuses an unknown --by', async () => {
    const byRun = await hivewatch(['cost', '--by', 'run', '--json']);
    expect((JSON.parse(byRun.stdout) as { runs: unknown[] }).runs).toHaveLength(1);
    const bad = await hivewatch(['cost', '--by', 'model']);
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stderr).toContain('--by must be flow or run');
  });
});
