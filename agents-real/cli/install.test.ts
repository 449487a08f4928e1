import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCli, installedSpec, testClisRoot } from './install.js';

/**
 * The installer against a real npm and a real package (a tarball made here, so no registry is
 * needed): installed once, reused, two installs at once serialised by the lock, a failure
 * answered with its reason and nothing left behind.
 */

let work = '';
let tarball = '';
let counter = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'hivewatch-install-test-'));
  counter = join(work, 'installs.txt');
  const pkg = join(work, 'pkg');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'cli.js'), '#!/usr/bin/env node\nconsole.log("fake-cli 1.2.3");\n', { mode: 0o755 });
  // Its postinstall counts the installs that really ran (the double must be able to show two).
  const postinstall = `node -e "require('fs').appendFileSync(${JSON.stringify(counter).replace(/"/g, "'")}, 'x')"`;
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'hivewatch-fake-cli', version: '1.2.3', bin: { 'fake-cli': 'cli.js' }, scripts: { postinstall } }),
  );
  const name = execFileSync('npm', ['pack', pkg, '--pack-destination', work, '--silent'], { encoding: 'utf8', cwd: work }).trim().split('\n').pop() ?? '';
  tarball = join(work, name);
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const installs = (): number => (existsSync(counter) ? readFileSync(counter, 'utf8').length : 0);

describe('installing a pinned CLI into the cache', () => {
  it('installs once, then reuses the copy; the command runs and says its version', async () => {
    const root = join(work, 'cache-a');
    const request = { name: 'fake', spec: tarball, version: '1.2.3', bin: 'fake-cli', root };
    const first = await installCli(request);
    expect(first).toMatchObject({ ok: true, reused: false, version: '1.2.3' });
    if (!first.ok) return;
    expect(execFileSync(first.bin, { encoding: 'utf8' })).toBe('fake-cli 1.2.3\n');
    expect(installedSpec(first.dir)).toBe(tarball);
    const again = await installCli(request);
    expect(again).toMatchObject({ ok: true, reused: true, bin: first.bin });
    expect(installs()).toBe(1);
  });

  it('two installs at once: one installs, the other waits on the lock and reuses it', async () => {
    const before = installs();
    const root = join(work, 'cache-b');
    const request = { name: 'fake', spec: tarball, version: '1.2.3', bin: 'fake-cli', root };
    const [a, b] = await Promise.all([installCli(request), installCli(request)]);
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect([a, b].map((r) => (r.ok ? r.reused : null)).sort()).toEqual([false, true]);
    expect(installs() - before).toBe(1);
    // Only the finished copy and its lock file: no half-installed folder.
    const entries = readdirSync(root);
    expect(entries).toHaveLength(2);
    expect(entries.filter((n) => n.endsWith('hivewatch-fake-cli-1.2.3.tgz@1.2.3'))).toHaveLength(1);
    expect(entries.filter((n) => n.endsWith('@1.2.3.lock'))).toHaveLength(1);
  });

  it('a failed npm install is an answer naming the package and npm’s words, and leaves nothing half-installed', async () => {
    const root = join(work, 'cache-c');
    const missing = join(work, 'no-such-package.tgz');
    const result = await installCli({ name: 'fake', spec: missing, version: '1.2.3', bin: 'fake-cli', root });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain(`npm install ${missing}`);
    expect(result.reason).toMatch(/exit [1-9]/);
    expect(readdirSync(root).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  });

  it('a copy whose command prints another version is refused, with both versions named', async () => {
    const result = await installCli({ name: 'fake', spec: tarball, version: '9.9.9', bin: 'fake-cli', root: join(work, 'cache-d') });
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/printed "fake-cli 1\.2\.3".*expected 9\.9\.9/) });
  });

  it('a .bin command that fails its version check gives way to an alternate that passes it', async () => {
    const root = join(work, 'cache-e');
    const request = { name: 'fake', spec: tarball, version: '7.7.7', bin: 'fake-cli', root, alternates: ['alt/cli'] };
    expect(await installCli(request)).toMatchObject({ ok: false, reason: expect.stringContaining('expected 7.7.7') });
    // The same program where a platform package would put it, printing the pinned version.
    const dir = join(root, readdirSync(root).find((n) => n.endsWith('@7.7.7')) ?? '');
    mkdirSync(join(dir, 'alt'));
    writeFileSync(join(dir, 'alt', 'cli'), '#!/bin/sh\necho "fake-cli 7.7.7"\n', { mode: 0o755 });
    expect(await installCli(request)).toMatchObject({ ok: true, reused: true, bin: join(dir, 'alt', 'cli') });
  });

  it('the cache is $HIVEWATCH_TEST_CLIS_DIR, else $XDG_CACHE_HOME/hivewatch-test-clis, else ~/.cache/hivewatch-test-clis', () => {
    expect(testClisRoot({ HIVEWATCH_TEST_CLIS_DIR: '/x/clis', XDG_CACHE_HOME: '/y' })).toBe('/x/clis');
    expect(testClisRoot({ XDG_CACHE_HOME: '/y' })).toBe('/y/hivewatch-test-clis');
    expect(testClisRoot({})).toMatch(/\/\.cache\/hivewatch-test-clis$/);
  });
});
