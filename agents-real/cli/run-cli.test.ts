import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { procAvailable, readProcStat } from '../../core/runtimes/process/process-identity.js';
import { baseEnv, makeTempHome, runCli, type TempHome } from './run-cli.js';

const homes: TempHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.remove();
});

function home(): TempHome {
  const h = makeTempHome();
  homes.push(h);
  return h;
}

const node = (script: string): { command: string; args: string[] } => ({ command: process.execPath, args: ['-e', script] });

/**
 * Whether the process that had this pid and start time still runs. A zombie does not: it only
 * waits to be reaped, and a container's PID 1 may never reap an orphan (core/runtimes/process/process-group.ts).
 */
function stillRuns(pid: number, startTime: string | null): boolean {
  const stat = readProcStat(pid);
  if (stat === null) {
    if (procAvailable()) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return stat.startTime === startTime && stat.state !== 'Z' && stat.state !== 'X';
}

describe('running a CLI', () => {
  it('captures its output and exit code, and gives it only the environment it is handed', async () => {
    const h = home();
    process.env.HIVEWATCH_RUN_CLI_LEAK = 'must not reach the child';
    try {
      const result = await runCli({
        ...node('console.log(JSON.stringify(Object.keys(process.env).sort())); console.error("to stderr"); process.exit(3)'),
        cwd: h.work,
        env: { ...baseEnv(h), EXTRA: '1' },
        deadlineMs: 60_000,
      });
      expect(result).toMatchObject({ exitCode: 3, signal: null, killedBy: null, stderr: 'to stderr\n' });
      const keys = JSON.parse(result.stdout) as string[];
      expect(keys).toContain('EXTRA');
      expect(keys).toContain('HOME');
      expect(keys).not.toContain('HIVEWATCH_RUN_CLI_LEAK');
    } finally {
      delete process.env.HIVEWATCH_RUN_CLI_LEAK;
    }
  });

  it("the harness's kill ends the CLI and every process it started (its group)", async () => {
    const h = home();
    const pidFile = join(h.root, 'grandchild.pid');
    // A CLI that starts a child which would outlive it, then waits forever.
    const script = `const { spawn } = require('child_process'); const c = spawn('sleep', ['600'], { stdio: 'ignore' }); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000);`;
    let grandchild = 0;
    let startTime: string | null = null;
    const started = expect
      .poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', { message: 'the grandchild to start', timeout: 20_000 })
      .toBe(true)
      .then(() => {
        grandchild = Number(readFileSync(pidFile, 'utf8'));
        startTime = readProcStat(grandchild)?.startTime ?? null;
      });
    const result = await runCli({ ...node(script), cwd: h.work, env: baseEnv(h), deadlineMs: 120_000, killWhen: started });
    expect(result).toMatchObject({ killedBy: 'harness', signal: 'SIGTERM', exitCode: null });
    expect(grandchild).toBeGreaterThan(0);
    await expect.poll(() => !stillRuns(grandchild, startTime), { message: 'the grandchild to be gone', timeout: 20_000 }).toBeTruthy();
  });

  it('the deadline ends a CLI that never exits and says so', async () => {
    const h = home();
    const result = await runCli({ ...node('setInterval(() => {}, 1000)'), cwd: h.work, env: baseEnv(h), deadlineMs: 200 });
    expect(result.killedBy).toBe('deadline');
    expect(result.signal).toBe('SIGTERM');
  });

  it('a temp home is a HOME with XDG folders, TMPDIR and a git project; remove() leaves nothing', () => {
    const h = makeTempHome();
    try {
      const env = baseEnv(h);
      expect(env).toMatchObject({ HOME: h.root, TZ: 'UTC', TMPDIR: join(h.root, 'tmp'), XDG_CONFIG_HOME: join(h.root, '.config') });
      for (const dir of ['tmp', '.config', '.cache', '.local/share', '.local/state', 'work/.git'])
        expect(statSync(join(h.root, dir)).isDirectory(), dir).toBe(true);
    } finally {
      h.remove();
    }
    expect(existsSync(h.root)).toBe(false);
  });
});
