import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakedClockEnv } from './faked-clock.js';

/**
 * Runs a CLI the way a test needs it: in its own process group (so every child it starts ends
 * with it), with stdin closed, an environment built from nothing (the user's own keys and
 * config never reach it), and two ways to end it besides its own exit: `killWhen` (the
 * harness's kill, for a hang no setting of the CLI bounds) and `deadlineMs` (a run that outlives
 * it is a failure the result names). Never a sleep: the CLI ends on its own, or one of these.
 */

export interface CliRun {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The run is killed after this long and reported `killedBy: 'deadline'`. */
  deadlineMs: number;
  /** Resolves when the harness should end the run itself (`killedBy: 'harness'`). */
  killWhen?: Promise<void>;
}

export interface CliResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  killedBy: 'harness' | 'deadline' | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export function runCli(run: CliRun): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(run.command, run.args, { cwd: run.cwd, env: run.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killedBy: CliResult['killedBy'] = null;
    let exited = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const end = (why: 'harness' | 'deadline'): void => {
      if (exited || child.pid === undefined) return;
      killedBy ??= why;
      killGroup(child.pid, 'SIGTERM');
      // A CLI that ignores SIGTERM still ends: SIGKILL when the group outlives a short grace.
      setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), 3_000).unref();
    };
    const deadline = setTimeout(() => end('deadline'), run.deadlineMs);
    run.killWhen?.then(() => end('harness')).catch(() => undefined);
    child.on('error', (error) => {
      clearTimeout(deadline);
      reject(new Error(`cannot start ${run.command}: ${error.message}`));
    });
    child.on('exit', () => {
      exited = true;
      clearTimeout(deadline);
      // Whatever the CLI left running (a tool's shell, a helper) ends with it.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    });
    child.on('close', (code, signal) => {
      resolve({ exitCode: code, signal, killedBy, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

export interface TempHome {
  /** HOME, with XDG_* and TMPDIR inside it. */
  readonly root: string;
  /** The project directory the CLI runs in: a git repository with one file. */
  readonly work: string;
  /** HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_STATE_HOME, TMPDIR. */
  env(): Record<string, string>;
  remove(): void;
}

/**
 * A home for one CLI run. `at` gives a fixed path (the recorder uses one per run so re-recorded
 * fixtures keep the same paths); by default a fresh temp directory.
 */
export function makeTempHome(at?: string): TempHome {
  let root: string;
  if (at) {
    rmSync(at, { recursive: true, force: true });
    mkdirSync(at, { recursive: true });
    root = at;
  } else {
    root = mkdtempSync(join(tmpdir(), 'hivewatch-real-cli-'));
  }
  const dirs = { XDG_CONFIG_HOME: '.config', XDG_CACHE_HOME: '.cache', XDG_DATA_HOME: '.local/share', XDG_STATE_HOME: '.local/state', TMPDIR: 'tmp' };
  for (const dir of Object.values(dirs)) mkdirSync(join(root, dir), { recursive: true });
  const work = join(root, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'README.md'), '# A project the agent CLI runs in\n');
  const git = spawnSync('git', ['init', '-q', work], { encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git init ${work} failed: ${git.stderr || String(git.error)}`);
  return {
    root,
    work,
    env: () => ({ HOME: root, ...Object.fromEntries(Object.entries(dirs).map(([k, v]) => [k, join(root, v)])) }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The variables every CLI run starts from: nothing of the user's environment but PATH, and the
 * suite's libfaketime clock when it runs under one (so the CLI's time is the suite's).
 */
export function baseEnv(home: TempHome): Record<string, string> {
  return {
    ...fakedClockEnv(),
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    // Wall-clock texts (a usage limit's reset time) print in UTC.
    TZ: 'UTC',
    NO_COLOR: '1',
    TERM: 'dumb',
    ...home.env(),
  };
}
