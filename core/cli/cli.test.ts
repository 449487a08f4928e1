import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { groupAlive } from '../runtimes/process/process-group.js';
import { tempDirs } from '../testing/temp-dirs.js';

const tempDir = tempDirs();
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function hivewatch(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HIVEWATCH_DB: ':memory:', ...env }, ...(cwd ? { cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const events = (stdout: string): HivewatchEvent[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as HivewatchEvent);

function flowFile(source: string): string {
  const file = join(tempDir('hw-cli-'), 'flow.prose');
  writeFileSync(file, source);
  return file;
}

describe('hivewatch CLI', () => {
  it('check: exit 0 for a valid flow, 2 with every diagnostic at file:line:col', async () => {
    expect((await hivewatch(['check', 'examples/01-happy-path.prose'])).code).toBe(0);
    const bad = flowFile('session "a" (retry: -1)\ncatch:\n  session "b"\nsession "open\n');
    const result = await hivewatch(['check', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}:1:21: retry must be a whole number of at least 0, got -1`);
    expect(result.stderr).toContain(`${bad}:2:1: catch without a matching try`);
    expect(result.stderr).toContain(`${bad}:4:9: unterminated string`);
  });

  it('run: an invalid flow exits 2 and runs nothing (the attempt is journaled as a failed run: bad-input.test.ts)', async () => {
    const result = await hivewatch(['run', flowFile('session "x" (backoff: "sometimes")\n'), '--json', '--agent', 'fake']);
    expect(result.code).toBe(2);
    expect(events(result.stdout).map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
  });

  it('run: a session without an agent fails before step 0 with USER_MISSING_DEPENDENCY; --agent fixes it', async () => {
    const file = flowFile('session "x"\n');
    const missing = await hivewatch(['run', file, '--json']);
    expect(missing.code).toBe(1);
    expect(events(missing.stdout).map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runFailed']);
    expect(events(missing.stdout).at(-1)).toMatchObject({ type: 'runFailed', error: { code: 'USER_MISSING_DEPENDENCY' } });
    const given = await hivewatch(['run', file, '--json', '--virtual-clock', '--agent', 'fake']);
    expect(given.code).toBe(0);
    const fromEnv = await hivewatch(['run', file, '--json'], { HIVEWATCH_AGENT: 'fake' });
    expect(fromEnv.code).toBe(0);
  });

  it('run --json: the rate-limited example journals 30 s then 60 s then 120 s and completes', async () => {
    const result = await hivewatch(['run', 'examples/02-rate-limited-api.prose', '--json', '--virtual-clock']);
    expect(result.code).toBe(0);
    const delays = events(result.stdout).flatMap((e) => (e.type === 'retryScheduled' && e.ordinal === 0 ? [e.delayMs] : []));
    expect(delays).toEqual([30_000, 60_000, 120_000]);
  });

  it('run: exit 1 when the run fails (try/catch/finally example rethrows)', async () => {
    const result = await hivewatch(['run', 'examples/05-try-catch-finally.prose', '--virtual-clock']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✘ failed: RUNTIME_CRASHED');
  });

  it('run: SIGINT cancels the run through rules 9–11 and exits 3', async () => {
    const file = flowFile(`
agent slow:
  runtime: "fake"
parallel:
  a = session: slow
    prompt: "A"
    simulate: "slow:60s"
  b = session: slow
    prompt: "B"
    simulate: "slow:60s"
`);
    const child = spawn(process.execPath, [BIN, 'run', file, '--json'], { env: { ...process.env, HIVEWATCH_DB: ':memory:' } });
    const seen: HivewatchEvent[] = [];
    const lines = createInterface({ input: child.stdout });
    let started = 0;
    lines.on('line', (line) => {
      const event = JSON.parse(line) as HivewatchEvent;
      seen.push(event);
      if (event.type === 'attemptStarted' && ++started === 2) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(3);
    const types = seen.map((e) => e.type);
    expect(types).toContain('cancelRequested');
    expect(types).toContain('runCancelling');
    expect(seen.filter((e) => e.type === 'taskFailed').map((e) => (e.type === 'taskFailed' ? [e.ordinal, e.cancelled] : []))).toEqual([
      [0, true],
      [1, true],
    ]);
    expect(types).not.toContain('stepFinished');
    expect(types.at(-1)).toBe('runCancelled');
  });

  it('run: a second Ctrl-C forces the cancel: an agent ignoring SIGTERM is killed at once, runCancelled {forced} last, exit 3; a third changes nothing', async () => {
    const ready = join(tempDir('hw-force-'), 'trapped');
    const file = flowFile(`
agent stubborn:
  command: "sh -c \\"trap '' TERM INT; touch ${ready}; sleep 25\\""
session: stubborn
  prompt: "hold on"
`);
    // A grace of ten minutes: only the forced cancel can end the agent while the test runs.
    const child = spawn(process.execPath, [BIN, 'run', file, '--json', '--kill-grace', '10m'], { env: { ...process.env, HIVEWATCH_DB: ':memory:' } });
    const seen: HivewatchEvent[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const event = JSON.parse(line) as HivewatchEvent;
      seen.push(event);
      if (event.type === 'runCancelling') {
        child.kill('SIGINT');
        child.kill('SIGINT');
      }
    });
    await expect
      .poll(() => seen.some((e) => e.type === 'attemptProcess') && existsSync(ready), {
        message: 'the agent to be spawned and to ignore SIGTERM',
        timeout: 20_000,
      })
      .toBeTruthy();
    child.kill('SIGINT');
    const code = await closed;
    expect(code).toBe(3);
    expect(stderr).toContain('cancelling by force');
    const requests = seen.filter((e) => e.type === 'cancelRequested');
    expect(requests.map((e) => (e.type === 'cancelRequested' ? [e.alreadyCancelling, e.forced ?? false] : []))[0]).toEqual([false, false]);
    expect(requests.filter((e) => e.type === 'cancelRequested' && e.forced)).toHaveLength(1);
    expect(seen.at(-1)).toMatchObject({ type: 'runCancelled', forced: true });
    const spawned = seen.find((e) => e.type === 'attemptProcess');
    expect(groupAlive(spawned?.type === 'attemptProcess' ? spawned.pid : -1)).toBe(false);
  });

  it("resume and retry keep the run's own agent when no --agent is given", async () => {
    const file = flowFile('session "build"\nsession "release"\n  simulate: "crash"\n');
    const db = join(dirname(file), 'runs.db');
    const failed = await hivewatch(['run', file, '--json', '--virtual-clock', '--agent', 'fake', '--db', db]);
    expect(failed.code).toBe(1);
    const runId = events(failed.stdout)[0]?.runId as string;
    for (const mode of ['resume', 'retry']) {
      const again = await hivewatch([mode, runId, '--json', '--virtual-clock', '--db', db], { HIVEWATCH_AGENT: '' });
      const started = events(again.stdout).filter((e) => e.type === 'taskStarted');
      expect(started.length).toBeGreaterThan(0);
      expect(started.map((e) => (e.type === 'taskStarted' ? e.agent : ''))).toEqual(started.map(() => 'fake'));
    }
  });

  it('resume refuses a flow file that changed since the run and names retry; retry runs the file as it is now', async () => {
    const file = flowFile(
      'agent worker:\n  runtime: "fake"\nsession: worker\n  prompt: "build"\nsession: worker\n  prompt: "test"\n' +
        'session: worker\n  prompt: "release"\n  simulate: "crash"\n',
    );
    const db = join(dirname(file), 'runs.db');
    const failed = await hivewatch(['run', file, '--json', '--virtual-clock', '--db', db]);
    expect(failed.code).toBe(1);
    const runId = events(failed.stdout)[0]?.runId as string;

    writeFileSync(file, 'agent worker:\n  runtime: "fake"\nsession: worker\n  prompt: "deploy to production"\n');
    const resumed = await hivewatch(['resume', runId, '--json', '--virtual-clock', '--db', db]);
    expect(resumed.code).toBe(1);
    expect(resumed.stdout).toBe('');
    expect(resumed.stderr).toMatch(
      new RegExp(
        `^hivewatch resume: the flow changed since run ${runId} ran it \\(sha256:\\w{12} then, sha256:\\w{12} now\\); .* retry it instead \\(hivewatch retry ${runId}\\), which runs the file as it is now\\n$`,
      ),
    );

    const retried = await hivewatch(['retry', runId, '--json', '--virtual-clock', '--db', db]);
    expect(retried.code).toBe(0);
    const started = events(retried.stdout).filter((e) => e.type === 'taskStarted');
    expect(started.map((e) => (e.type === 'taskStarted' ? e.name : ''))).toEqual(['deploy to production']);
  });

  it('--db with a database URL never creates a file: another scheme is refused, a PostgreSQL server that is not there is named without its password', async () => {
    const cwd = tempDir('hw-url-');
    const file = flowFile('session "a"\n');
    for (const args of [
      ['runs', '--db', 'mysql://user@db.example:3306/hive'],
      ['run', file, '--agent', 'fake', '--db', 'mysql://user@db.example:3306/hive'],
    ]) {
      const result = await hivewatch(args, {}, cwd);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `hivewatch ${args[0]}: "mysql://…" is a database server's address Hivewatch cannot use: give a SQLite file path or a PostgreSQL URL (postgres://user@host:5432/db)\n`,
      );
    }
    // Port 1 on loopback refuses at once: nothing listens there.
    const away = await hivewatch(['runs', '--db', 'postgres://hw:s3cret-pw@127.0.0.1:1/hive'], {}, cwd);
    expect(away.code).toBe(1);
    expect(away.stderr).toBe('hivewatch runs: cannot connect to PostgreSQL at postgres://hw:***@127.0.0.1:1/hive: connect ECONNREFUSED 127.0.0.1:1\n');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('unknown commands and options are usage errors', async () => {
    expect((await hivewatch(['frobnicate'])).code).toBe(64);
    const bad = await hivewatch(['run', 'examples/01-happy-path.prose', '--fast']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('unknown option --fast');
  });
});
