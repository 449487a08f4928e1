import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { MAX_LISTED_DIAGNOSTICS } from '../flow/syntax/source.js';
import { openStore } from '../store/index.js';

/**
 * Bad input on every path of the command line gets one clear error, bounded
 * output and a documented exit code, and an attempt to run a flow that does not check is on
 * record as a failed run (USER_INVALID_FLOW) while `check` writes nothing.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function hivewatch(args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HIVEWATCH_DB: join(dir, 'hivewatch.db') } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const eventsOf = (stdout: string): HivewatchEvent[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as HivewatchEvent);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-bad-input-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('bad input on the command line', () => {
  it('check of a binary (/bin/true, a 2 MB one): one "not a text flow file" line and exit 2, never megabytes', async () => {
    const big = join(dir, 'big.bin');
    // Under the 2 MiB a flow file may have (past it, the size is the one problem: sharp-edges.test.ts).
    const bytes = Buffer.alloc(2_000_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
    writeFileSync(big, bytes);
    for (const file of ['/bin/true', big]) {
      const result = await hivewatch(['check', file]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`^${file}:1:1: not a text flow file: ${file} \\(it holds a NUL byte at byte \\d+, so it is binary\\)$`));
      expect(lines[1]).toBe('1 error(s)');
    }
    const latin1 = join(dir, 'latin1.prose');
    writeFileSync(latin1, Buffer.from('session "caf\xe9"\n', 'latin1'));
    expect((await hivewatch(['check', latin1])).stderr).toBe(
      `${latin1}:1:1: not a text flow file: ${latin1} (it is not UTF-8 (an invalid byte sequence at byte 12))\n1 error(s)\n`,
    );
  });

  it('check of a large text that is not a flow lists the first problems and "… and N more", with the full count', async () => {
    const file = join(dir, 'noise.prose');
    writeFileSync(file, Array.from({ length: 20_000 }, (_, i) => `}}} ${i} ((( "open`).join('\n'));
    const result = await hivewatch(['check', file]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(MAX_LISTED_DIAGNOSTICS + 2);
    expect(lines.at(-2)).toMatch(/^.*noise\.prose:\d+:\d+: … and \d+ more problems \(\d+ errors; only the first 50 are listed\)$/);
    expect(Number(/^(\d+) error\(s\)$/.exec(lines.at(-1)!)?.[1])).toBeGreaterThan(20_000);
    expect(result.stderr.length).toBeLessThan(20_000);
  });

  it('run of a flow that does not check: exit 2, and a failed run on record with USER_INVALID_FLOW, its diagnostics and a chain of one; check wrote nothing', async () => {
    const file = join(dir, 'broken.prose');
    writeFileSync(file, 'session "a" (retry: -1)\ncatch:\n  session "b"\n');
    const checked = await hivewatch(['check', file]);
    expect(checked.code).toBe(2);
    const store = await openStore({ path: join(dir, 'hivewatch.db') });
    try {
      expect((await store.listRuns()).runs).toEqual([]);
    } finally {
      await store.close();
    }

    const result = await hivewatch(['run', file, '--json', '--agent', 'fake']);
    expect(result.code).toBe(2);
    const journal = eventsOf(result.stdout);
    const runId = journal[0]!.runId;
    expect(journal.map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
    expect(result.stderr).toBe(
      `${file}:1:21: retry must be a whole number of at least 0, got -1\n${file}:2:1: catch without a matching try: a catch block must directly follow the body of a try\n` +
        `hivewatch run: the flow does not check; recorded as failed run ${runId} (USER_INVALID_FLOW)\n`,
    );
    const error = {
      code: 'USER_INVALID_FLOW',
      category: 'user',
      origin: 'user',
      message: `${file}:1:21: retry must be a whole number of at least 0, got -1 (and 1 more)`,
      context: {
        errorCount: 2,
        diagnostics: [
          { file, line: 1, column: 21, severity: 'error', message: 'retry must be a whole number of at least 0, got -1' },
          { file, line: 2, column: 1, severity: 'error', message: 'catch without a matching try: a catch block must directly follow the body of a try' },
        ],
      },
    };
    expect(journal[0]).toMatchObject({ type: 'runStarted', flow: file, flowName: 'broken', flowText: 'session "a" (retry: -1)\ncatch:\n  session "b"\n' });
    expect(journal[1]).toMatchObject({ type: 'errorOccurred', seq: 2, caught: false, retrying: false, error });
    expect(journal[2]).toEqual({
      runId,
      seq: 3,
      ts: journal[1]!.ts,
      type: 'runFailed',
      error: (journal[1] as { error: unknown }).error,
      chain: [
        { seq: 2, code: 'USER_INVALID_FLOW', category: 'user', origin: 'user', message: error.message, step: null, taskId: null, attempt: null, how: null },
      ],
    });

    const again = await openStore({ path: join(dir, 'hivewatch.db') });
    try {
      expect(await again.getRunRow(runId)).toMatchObject({ status: 'failed', lastErrorCode: 'USER_INVALID_FLOW', errorCount: 1 });
      expect(await again.errorCounts({ by: 'code' })).toEqual([{ key: 'USER_INVALID_FLOW', count: 1, label: null }]);
      expect((await again.replayRun(runId)).diffs).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('run of a binary is a failed run too, without its bytes in the journal', async () => {
    const result = await hivewatch(['run', '/bin/true', '--json']);
    expect(result.code).toBe(2);
    const journal = eventsOf(result.stdout);
    expect(journal.map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
    expect(journal[0]).not.toHaveProperty('flowText');
    expect(journal[0]).not.toHaveProperty('flowDigest');
    expect(journal[2]).toMatchObject({ error: { code: 'USER_INVALID_FLOW', message: expect.stringContaining('not a text flow file: /bin/true') } });
    expect(result.stdout.length).toBeLessThan(5_000);
  });

  it('replay of a run that is not there: exit 1 and "no such run", not "replay matches (0 events)"', async () => {
    const result = await hivewatch(['replay', 'run_nothere']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`hivewatch replay: no such run "run_nothere" in ${join(dir, 'hivewatch.db')}\n`);
  });
});

describe('one retry owner on the command line (rule 20)', () => {
  it('check: two owners exit 2 naming both at line:col; a codex-cli session that retries is a warning and exits 0', async () => {
    const both = join(dir, 'both.prose');
    writeFileSync(both, 'agent coder:\n  runtime: "claude-code"\n  env: ["CLAUDE_CODE_MAX_RETRIES=10"]\nsession: coder\n  prompt: "fix"\n  retry: 3\n');
    const refused = await hivewatch(['check', both]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^${both}:4:1: two layers retry session #0: the engine \\(retry: 3\\) and Claude Code itself \\(agent "coder" sets CLAUDE_CODE_MAX_RETRIES=10 at 3:9\\); at most one layer may retry a given failure class\\.`,
      ),
    );
    const codex = join(dir, 'codex.prose');
    writeFileSync(codex, 'agent x:\n  runtime: "codex-cli"\nsession: x\n  prompt: "p"\n  retry: 2\n');
    const warned = await hivewatch(['check', codex]);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toBe(`${codex}: ok (1 sessions)\n`);
    expect(warned.stderr).toMatch(
      new RegExp(`^${codex}:3:1: two layers retry session #0: the engine \\(retry: 2\\) and codex-cli itself, .* \\(warning\\)\\n$`),
    );
  });

  it("run with --agent naming a flow agent that turns Claude Code's retries on: a session that retries makes it a failed run, exit 2", async () => {
    const file = join(dir, 'default-agent.prose');
    writeFileSync(file, 'agent coder:\n  runtime: "fake"\n  env: ["CLAUDE_CODE_MAX_RETRIES=10"]\nsession "fix" (retry: 2)\n');
    expect((await hivewatch(['check', file])).code).toBe(0);
    const result = await hivewatch(['run', file, '--json', '--agent', 'coder']);
    expect(result.code).toBe(2);
    const journal = eventsOf(result.stdout);
    expect(journal.map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
    expect(journal[0]).toMatchObject({ options: { defaultAgent: 'coder' } });
    expect(journal[2]).toMatchObject({
      error: { code: 'USER_INVALID_FLOW', message: expect.stringContaining(`${file}:4:1: two layers retry session #0 (run with default agent "coder")`) },
    });
    expect((await hivewatch(['run', file, '--json', '--agent', 'fake', '--virtual-clock'])).code).toBe(0);
  });
});
