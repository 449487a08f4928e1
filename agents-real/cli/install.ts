import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_PINS, type CliName } from '../pins.js';

/**
 * Installs a pinned agent CLI with npm into a cache outside the product's node_modules, once per
 * machine: `~/.cache/hivewatch-test-clis/<pkg>@<version>/` (or $HIVEWATCH_TEST_CLIS_DIR), reused
 * when present. `flock` on `<root>/<pkg>@<version>.lock` serialises two suites that install at
 * once; the second finds the finished copy and reuses it. The copy appears only when npm
 * succeeded (it is installed beside it and renamed into place), so a broken install is never
 * taken for a finished one.
 *
 * A failure is an answer, not an exception: the suites skip with `reason` in their name.
 */

export type CliInstall =
  | { ok: true; name: string; version: string; dir: string; bin: string; reused: boolean }
  | { ok: false; name: string; version: string; reason: string };

export interface InstallRequest {
  name: string;
  /** What `npm install` is given: `pkg@version`, or a tarball path in the installer's own tests. */
  spec: string;
  /** Packages installed beside it, pinned (`pkg@version`): an SDK with its peers. The cache is named after `spec`. */
  with?: string[];
  version: string;
  /** The command in node_modules/.bin to run. */
  bin: string;
  /**
   * Paths inside the install to try, in order, when the .bin command does not print the version
   * (Claude Code's platform binary, should npm not have run the postinstall that puts it in place).
   */
  alternates?: string[];
  root?: string;
  /** Run `<bin> --version` and expect `version` in its output (default true). */
  verify?: boolean;
  timeoutMs?: number;
}

const MARKER = '.hivewatch-installed';
const INSTALL_TIMEOUT_MS = 15 * 60_000;

export function testClisRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HIVEWATCH_TEST_CLIS_DIR) return env.HIVEWATCH_TEST_CLIS_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hivewatch-test-clis');
}

function cacheName(spec: string, version: string): string {
  const pkg = spec.startsWith('@') ? spec.slice(0, spec.indexOf('@', 1)) : (spec.split('@')[0] ?? spec);
  return `${pkg.replace(/[/\\:]/g, '+').replace(/^\+*/, '')}@${version}`;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  error: string | null;
}

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs: number; cwd?: string }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A registry that never answers must not hold the suite forever: the install's own deadline.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, error: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, error: signal ? `killed by ${signal} after ${options.timeoutMs} ms` : null });
    });
  });
}

const lastLines = (text: string, n = 3): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n)
    .join(' | ');

/**
 * The install itself, as one shell script so `flock` can hold the lock across "is it there
 * already? / npm install / rename into place". Prints `present` or `installed`.
 */
const INSTALL_SCRIPT = [
  'set -e',
  'dir="$1"; shift',
  'if [ -e "$dir/' + MARKER + '" ]; then echo present; exit 0; fi',
  'partial="$dir.partial-$$"',
  // A failed npm leaves nothing behind; after the rename there is nothing left to remove.
  'trap \'rm -rf "$partial"\' EXIT',
  'rm -rf "$partial"; mkdir -p "$partial"',
  // Scripts stay on: Claude Code's postinstall puts the platform binary in place of bin/claude.exe.
  'npm install --prefix "$partial" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts=false --loglevel=error "$@" >&2',
  'rm -rf "$dir"; mv "$partial" "$dir"',
  'printf "%s\\n" "$*" > "$dir/' + MARKER + '"',
  'echo installed',
].join('\n');

async function hasFlock(): Promise<boolean> {
  const probe = await run('flock', ['--version'], { timeoutMs: 10_000 });
  return probe.code === 0;
}

async function verifyVersion(bin: string, version: string): Promise<string | null> {
  // A throwaway HOME: asking for the version must not write into the user's own config.
  const home = mkdtempSync(join(tmpdir(), 'hivewatch-cli-version-'));
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: join(home, '.codex'), CLAUDE_CONFIG_DIR: join(home, '.claude') };
    mkdirSync(env.CODEX_HOME);
    const ran = await run(bin, ['--version'], { env, timeoutMs: 120_000, cwd: home });
    if (ran.code === 0 && ran.stdout.includes(version)) return null;
    return `\`${bin} --version\` printed ${JSON.stringify(lastLines(ran.stdout + ran.stderr) || ran.error)} (exit ${String(ran.code)}), expected ${version}`;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export async function installCli(request: InstallRequest): Promise<CliInstall> {
  const { name, version } = request;
  const root = request.root ?? testClisRoot();
  const dir = join(root, cacheName(request.spec, version));
  const bin = join(dir, 'node_modules', '.bin', request.bin);
  const fail = (reason: string): CliInstall => ({ ok: false, name, version, reason });
  let reused = existsSync(join(dir, MARKER));
  if (!reused) {
    try {
      mkdirSync(root, { recursive: true });
    } catch (error) {
      return fail(`cannot create the CLI cache ${root}: ${(error as Error).message}`);
    }
    const lock = `${dir}.lock`;
    const script = ['sh', '-c', INSTALL_SCRIPT, 'install-cli', dir, request.spec, ...(request.with ?? [])];
    const [command, args] = (await hasFlock()) ? ['flock', ['-w', '1200', lock, ...script]] : [script[0] ?? 'sh', script.slice(1)];
    const ran = await run(command, args, { timeoutMs: request.timeoutMs ?? INSTALL_TIMEOUT_MS });
    if (ran.code !== 0) {
      return fail(
        `npm install ${request.spec} into ${root} failed (exit ${String(ran.code)}${ran.error ? `, ${ran.error}` : ''}): ${lastLines(ran.stderr) || 'no output'}`,
      );
    }
    reused = ran.stdout.trim() === 'present';
  }
  if (!existsSync(bin)) return fail(`${request.spec} is installed in ${dir} but has no node_modules/.bin/${request.bin}`);
  if (request.verify === false) return { ok: true, name, version, dir, bin, reused };
  const wrong = await verifyVersion(bin, version);
  if (!wrong) return { ok: true, name, version, dir, bin, reused };
  for (const alternate of (request.alternates ?? []).map((path) => join(dir, path)).filter((path) => existsSync(path))) {
    if ((await verifyVersion(alternate, version)) === null) return { ok: true, name, version, dir, bin: alternate, reused };
  }
  return fail(wrong);
}

const installs = new Map<CliName, Promise<CliInstall>>();

/** The pinned CLI, installed (or found) once per process. */
export function installedCli(name: CliName): Promise<CliInstall> {
  let install = installs.get(name);
  if (!install) {
    const pin = CLI_PINS[name];
    install = installCli({
      name,
      spec: `${pin.pkg}@${pin.version}`,
      version: pin.version,
      bin: pin.bin,
      alternates: pin.alternates?.(process.platform, process.arch),
    });
    installs.set(name, install);
  }
  return install;
}

/** What the marker says was installed (the spec), or null when the copy is not complete. */
export function installedSpec(dir: string): string | null {
  const marker = join(dir, MARKER);
  return existsSync(marker) ? readFileSync(marker, 'utf8').trim() : null;
}
