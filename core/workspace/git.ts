import { execFile, execFileSync } from 'node:child_process';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../base/errors/taxonomy.js';

/**
 * git as a subprocess: the repository's own git, its hooks and its configuration, no library
 * that might read a repository differently. Never interactive (no prompt for credentials or an
 * editor), never localized (messages are matched), and a commit always has an author: the
 * repository's identity where one is configured, else `Hivewatch <hivewatch@localhost>` (a fresh
 * machine has none).
 */

const FALLBACK_IDENTITY = { name: 'Hivewatch', email: 'hivewatch@localhost' } as const;

const BASE_ENV: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  GIT_MERGE_AUTOEDIT: 'no',
  LC_ALL: 'C',
  LANG: 'C',
};

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  /** Extra environment (identity, config overrides in tests). */
  env?: Record<string, string> | undefined;
}

const MAX_OUTPUT = 64 * 1024 * 1024;

export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args as string[],
      { cwd: options.cwd, env: { ...process.env, ...BASE_ENV, ...options.env }, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 127;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error && code === 127 ? error.message : '') });
      },
    );
  });
}

/** For the few ref updates that must happen inside a synchronous commit (see run-workspace.ts). */
export function runGitSync(args: readonly string[], options: GitOptions): GitResult {
  try {
    const stdout = execFileSync('git', args as string[], {
      cwd: options.cwd,
      env: { ...process.env, ...BASE_ENV, ...options.env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status?: number | null; stdout?: string; stderr?: string; message?: string };
    return { code: e.status ?? 127, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message ?? '' };
  }
}

/** The last lines of git's complaint, for an error message. */
function gitComplaint(result: GitResult): string {
  const text = (result.stderr || result.stdout).trim();
  return text.split('\n').slice(-4).join(' · ') || `git exited with code ${result.code}`;
}

export function gitError(
  code: Extract<ErrorCode, `GIT_${string}`>,
  what: string,
  result: GitResult | null,
  context: Record<string, unknown> = {},
): HivewatchError {
  return new HivewatchError(code, {
    message: result ? `${what}: ${gitComplaint(result)}` : what,
    origin: 'git',
    context: { ...context, ...(result ? { exitCode: result.code, stderr: result.stderr.slice(-2000) } : {}) },
  });
}

/** Runs git and returns stdout, or throws the given git error. */
export async function gitOrThrow(
  args: readonly string[],
  options: GitOptions,
  failure: { code: Extract<ErrorCode, `GIT_${string}`>; what: string; context?: Record<string, unknown> },
): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) throw gitError(failure.code, failure.what, result, failure.context);
  return result.stdout;
}

/** The identity commits are made with: the repository's, else the fallback (as environment). */
export async function identityEnv(cwd: string, env?: Record<string, string>): Promise<Record<string, string>> {
  const name = (await runGit(['config', 'user.name'], { cwd, env })).stdout.trim();
  const email = (await runGit(['config', 'user.email'], { cwd, env })).stdout.trim();
  const who = { name: name || FALLBACK_IDENTITY.name, email: email || FALLBACK_IDENTITY.email };
  return {
    ...env,
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
  };
}
