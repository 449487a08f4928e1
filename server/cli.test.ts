import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumAppArgs, detectElectron, findChromium, hasDisplay } from './launcher.js';
import { findPackageRoot } from '../shell-common/paths.js';

const root = findPackageRoot();
const bin = join(root, 'bin', 'hivewatch.js');

/** Starts `hivewatch <args>` and resolves once it printed its URL. */
function launch(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: URL; token: string; output: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /Open:\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=(\S+))/.exec(output);
      if (match && output.includes('Press Ctrl+C to stop.'))
        resolve({ child, url: new URL(match[1] as string), token: decodeURIComponent(match[2] as string), output: () => output });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code} before serving:\n${output}`)));
  });
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

describe('hivewatch serve / start', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  const tempDb = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'hivewatch-cli-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return join(dir, 'data', 'hivewatch.db');
  };

  it('serve: creates the database, lists the examples, answers curl-like requests with the token, stops on SIGINT', async () => {
    const db = tempDb();
    const { child, url, token, output } = await launch(['serve', '--port', '0', '--db', db]);
    cleanups.push(() => child.kill('SIGKILL'));
    expect(url.hostname).toBe('127.0.0.1');
    expect(output()).toContain(`Database: ${db} (created)`);
    expect(output()).toContain('Bundled examples (6):');
    expect(output()).toContain('examples/01-happy-path.prose');
    expect(output()).toContain(`curl -H "Authorization: Bearer ${token}" ${url.origin}/api/runs`);
    expect(existsSync(db)).toBe(true);

    const flows = await fetch(`${url.origin}/api/flows`, { headers: { authorization: `Bearer ${token}` } });
    expect(flows.status).toBe(200);
    expect(((await flows.json()) as { id: string }[]).filter((f) => f.id.startsWith('examples/'))).toHaveLength(6);
    expect((await fetch(`${url.origin}/api/flows`)).status).toBe(401);
    const started = await fetch(`${url.origin}/api/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ flow: 'examples/01-happy-path.prose', virtualClock: true }),
    });
    expect(started.status).toBe(201);
    const page = await fetch(url.href);
    expect(page.status).toBe(200);

    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('start without an Electron binary: the browser shell, and says why', async () => {
    const { child, output } = await launch(['start', '--no-open', '--port', '0', '--db', tempDb()], { HIVEWATCH_SHELL: '' });
    cleanups.push(() => child.kill('SIGKILL'));
    expect(output()).toContain('Hivewatch browser shell is running.');
    expect(output()).toMatch(/\(no Electron window: .+\)/);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('rejects bad flags with usage', () => {
    const result = spawnSync(process.execPath, [bin, 'serve', '--port', 'abc'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(64);
    expect(result.stderr).toContain('hivewatch serve: --port needs a port number from 0 to 65535, got "abc"');
    const unknown = spawnSync(process.execPath, [bin, 'serve', '--bogus'], { cwd: root, encoding: 'utf8' });
    expect(unknown.status).toBe(64);
    expect(unknown.stderr.split('\n')[0]).toBe('hivewatch serve: unknown option --bogus');
  });

  it('--help prints the usage and exits 0 without serving (was: node\'s "Unknown option" and 64)', () => {
    for (const command of ['serve', 'start']) {
      const result = spawnSync(process.execPath, [bin, command, '--help'], { cwd: root, encoding: 'utf8' });
      expect(result.status).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(
        'Usage:\n' +
          '  hivewatch serve [--port N] [--db PATH] [--demo] [--otel-port N|off] [--otel-idle DURATION]\n' +
          '  hivewatch start [--port N] [--db PATH] [--demo] [--browser] [--no-open] [--otel-port N|off] [--otel-idle DURATION]\n',
      );
    }
  });
});

describe('launcher decisions', () => {
  it('on this install, Electron is found only with its binary, whichever layout npm left', () => {
    const detection = detectElectron(root, {});
    if (detection.ok) expect(existsSync(detection.binary)).toBe(true);
    else expect(detection.reason).toMatch(/^(the electron package is not installed|Electron's binary (was not downloaded|is missing))/);
  });

  it('finds Chromium from CHROME_PATH or the usual places, and opens it as an app on a throwaway profile', () => {
    const have =
      (...paths: string[]) =>
      (p: string) =>
        paths.includes(p);
    expect(findChromium({}, 'linux', have('/usr/bin/chromium'))).toBe('/usr/bin/chromium');
    expect(findChromium({ CHROME_PATH: '/opt/chrome' }, 'linux', have('/opt/chrome', '/usr/bin/chromium'))).toBe('/opt/chrome');
    expect(findChromium({ CHROME_PATH: '/opt/missing' }, 'linux', have('/usr/bin/chromium'))).toBeNull();
    expect(findChromium({}, 'linux', have())).toBeNull();
    expect(hasDisplay({}, 'linux')).toBe(false);
    expect(hasDisplay({ DISPLAY: ':99' }, 'linux')).toBe(true);
    expect(hasDisplay({}, 'darwin')).toBe(true);
    expect(chromiumAppArgs('http://127.0.0.1:1/?token=t', '/tmp/p', { asRoot: true })).toEqual([
      '--app=http://127.0.0.1:1/?token=t',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--user-data-dir=/tmp/p',
      '--no-sandbox',
    ]);
    expect(chromiumAppArgs('u', '/tmp/p', { asRoot: false })).not.toContain('--no-sandbox');
  });
});
