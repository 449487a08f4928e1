import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { agentCommandProblems } from '../../core/flow/plan/command-safety.js';
import { templateFromText } from '../../core/runtimes/command-line.js';
import { skipTitle } from '../../core/testing/skip.js';
import { tempDirs } from '../../core/testing/temp-dirs.js';
import { cliCommand, fakedClockEnv } from './faked-clock.js';
import { installedCli } from './install.js';

/**
 * The suite's libfaketime clock handed to a real CLI: the helpers on their own, then for real
 * beside a live process under libfaketime (whose semaphore its children inherit), with Node and
 * with Claude Code's binary, which cannot attach to that semaphore.
 */

const tempDir = tempDirs();
const FAKED = {
  LD_PRELOAD: '/usr/$LIB/faketime/libfaketime.so.1',
  FAKETIME: '+2d',
  FAKETIME_SHARED: '/faketime_sem_7 /faketime_shm_7',
  FAKETIME_DONT_FAKE_MONOTONIC: '1',
  PATH: '/usr/bin:/bin',
};

describe('the faked clock for a CLI: the environment and the command line', () => {
  it('outside libfaketime, neither adds anything', () => {
    expect(fakedClockEnv({ PATH: '/usr/bin', FAKETIME: '+2d' })).toEqual({});
    expect(fakedClockEnv({ LD_PRELOAD: '/usr/lib/libother.so', FAKETIME: '+2d' })).toEqual({});
    const folder = tempDir('hivewatch-faked-clock-');
    expect(cliCommand('/opt/claude', folder, { PATH: '/usr/bin' })).toBe('/opt/claude');
    expect(readdirSync(folder)).toEqual([]);
  });

  it('an environment built from nothing gets the preload and its settings, never the semaphore', () => {
    expect(fakedClockEnv(FAKED)).toEqual({ LD_PRELOAD: FAKED.LD_PRELOAD, FAKETIME: '+2d', FAKETIME_DONT_FAKE_MONOTONIC: '1' });
  });

  it('a CLI started with the host environment gets a wrapper of its own name that drops the inherited semaphore, its path one quoted word', () => {
    const folder = tempDir('hivewatch-faked-clock-');
    const wrapper = cliCommand("/opt/it's/claude", folder, FAKED);
    // A preset's command: names the executable alone: the wrapper carries the CLI's name.
    expect(wrapper).toBe(join(folder, 'faked-clock', 'claude'));
    expect(readFileSync(wrapper, 'utf8')).toBe(`#!/bin/sh\nunset FAKETIME_SHARED\nexec '/opt/it'\\''s/claude' "$@"\n`);
    expect(statSync(wrapper).mode & 0o111).toBe(0o111);
    expect(agentCommandProblems({ runtime: 'claude-code', command: templateFromText(wrapper), shell: false })).toEqual([]);
    const { FAKETIME_SHARED: _shared, ...unshared } = FAKED;
    expect(cliCommand('/opt/claude', folder, unshared)).toBe('/opt/claude');
  });
});

/** libfaketime's preload library where Debian puts it, or null. */
function libfaketime(): string | null {
  const found = readdirSync('/usr/lib', { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `/usr/lib/${entry.name}/faketime/libfaketime.so.1`)
    .find((path) => existsSync(path));
  return found ?? null;
}

const library = libfaketime();
const claude = await installedCli('claude-code');
const TWO_DAYS = 2 * 86_400_000;
const hosts: ChildProcess[] = [];
afterAll(() => {
  // Closing stdin lets each host exit normally, so libfaketime removes its semaphore.
  for (const host of hosts) host.stdin?.end();
});

/** A Node process under libfaketime, two days ahead, alive until the file ends: its environment (with the FAKETIME_SHARED it made). */
async function fakedHost(preload: string): Promise<Record<string, string>> {
  const script = "console.log(JSON.stringify(process.env)); process.stdin.on('data', () => {}); process.stdin.on('end', () => process.exit(0));";
  const host = spawn(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LD_PRELOAD: preload, FAKETIME: '+2d' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  hosts.push(host);
  const [line] = await new Promise<string[]>((resolve) => createInterface({ input: host.stdout! }).once('line', (first) => resolve([first])));
  return JSON.parse(line ?? '{}') as Record<string, string>;
}

describe('a CLI beside a live process under libfaketime', () => {
  const noLibrary = library ? null : 'no libfaketime in /usr/lib/*/faketime (Debian package libfaketime)';

  it.skipIf(library === null)(skipTitle('a child given fakedClockEnv sees the same faked time', noLibrary), async () => {
    const host = await fakedHost(library!);
    expect(host.FAKETIME_SHARED).toBeDefined();
    // The machine's own clock, read without any preload (this suite may itself run under faketime).
    const real = Number(spawnSync('/bin/date', ['+%s'], { env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' }).stdout.trim()) * 1000;
    const child = spawnSync(process.execPath, ['-e', 'console.log(Date.now())'], {
      env: { PATH: host.PATH ?? '/usr/bin:/bin', ...fakedClockEnv(host) },
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const ahead = Number(child.stdout.trim()) - real;
    expect(ahead).toBeGreaterThanOrEqual(TWO_DAYS);
    expect(ahead).toBeLessThan(TWO_DAYS + 600_000);
  });

  const noClaude = noLibrary ?? (claude.ok ? null : `the CLI cache is unavailable (${claude.reason})`);
  it.skipIf(noClaude !== null)(skipTitle("Claude Code's binary starts through cliCommand with the host's whole environment", noClaude), async () => {
    if (!claude.ok) throw new Error('unreachable: skipped without the CLI');
    const host = await fakedHost(library!);
    const home = tempDir('hivewatch-faked-clock-');
    const env = { ...host, HOME: home, CLAUDE_CONFIG_DIR: `${home}/.claude`, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    const run = spawnSync(cliCommand(claude.bin, home, host), ['--version'], { env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(claude.version);
  });
});
