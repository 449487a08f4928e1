import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCostFlow } from '../../testing/claude-stand-in.js';
import { ExitCode } from '../io.js';

/**
 * `hivewatch cost` and `runs --json` through the real binary (dist/, built by the test setup) on
 * a real run of the claude-code preset against a stand-in CLI: a failed attempt ($0.17), then a
 * successful one ($0.25).
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
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
  it("runs --json carries each run's totals with the failed share", async () => {
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
    // The run completed after a failed attempt: its $0.17 is a retried attempt's, not a failed run's.
    expect(text.stdout).toContain('$0.42 = $0.00 failed runs + $0.17 retried attempts + $0.25 successful work');
    expect(text.stdout).toMatch(/FLOW\s+ATTEMPTS\s+TOKENS\s+FAILED RUNS\s+RETRIED\s+SUCCESSFUL/);
    const json = await hivewatch(['cost', '--json']);
    const { flows, split } = JSON.parse(json.stdout) as { flows: { flow: string; attempts: number }[]; split: { total: Record<string, { costUsd: number }> } };
    expect(flows.map((f) => [f.flow.endsWith('cost.prose'), f.attempts])).toEqual([[true, 2]]);
    expect(split.total.retried!.costUsd).toBeCloseTo(0.17, 10);
    expect(split.total.succeeded!.costUsd).toBeCloseTo(0.25, 10);
    expect(split.total.failed!.costUsd).toBe(0);
    // Under an error filter the row's attempts and tokens are those of the attempts that failed with it.
    const runtime = await hivewatch(['cost', '--category', 'runtime']);
    expect(runtime.stdout).toContain('$0.17 = $0.00 failed runs + $0.17 retried attempts + $0.00 successful work');
    expect(runtime.stdout).toMatch(/cost\.prose\s+1\s+1200 in \/ 80 out\s+\$0\.00\s+\$0\.17\s+\$0\.00/);
    // A code the run never failed with: no failed or retried spend, and no successful work under an error filter.
    const filtered = await hivewatch(['cost', '--code', 'AGENT_NO_CHANGES', '--json']);
    expect((JSON.parse(filtered.stdout) as { split: { flows: unknown[] } }).split.flows).toEqual([]);
  });

  it('lists the costliest runs with --by run, and refuses an unknown --by', async () => {
    const byRun = await hivewatch(['cost', '--by', 'run', '--json']);
    expect((JSON.parse(byRun.stdout) as { runs: unknown[] }).runs).toHaveLength(1);
    const text = await hivewatch(['cost', '--by', 'run']);
    expect(text.stdout).toContain('completed  2700 in / 320 out  $0.42 · $0.17 retried · $0.25 successful');
    const bad = await hivewatch(['cost', '--by', 'model']);
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stderr).toContain('--by must be flow or run');
  });
});
