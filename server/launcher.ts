import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * What `npm start` / `hivewatch start` opens: the Electron window when Electron's binary is
 * installed; else the browser shell in Chromium's app mode when a Chromium and a display are
 * there; else the URL is printed. Detection only looks at files; nothing is downloaded.
 */

export type ElectronDetection = { ok: true; binary: string } | { ok: false; reason: string };

function platformBinary(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/**
 * The Electron binary the `electron` package would run: `ELECTRON_OVERRIDE_DIST_PATH`, else the
 * path its installer wrote to `path.txt` (absent when the download was skipped or failed).
 */
export function detectElectron(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): ElectronDetection {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(join(root, 'package.json')).resolve('electron'));
  } catch {
    return { ok: false, reason: 'the electron package is not installed' };
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const binary = join(override, platformBinary(platform));
    return existsSync(binary) ? { ok: true, binary } : { ok: false, reason: `ELECTRON_OVERRIDE_DIST_PATH has no ${platformBinary(platform)}` };
  }
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return { ok: false, reason: "Electron's binary was not downloaded (no electron/path.txt)" };
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? { ok: true, binary } : { ok: false, reason: `Electron's binary is missing (${binary})` };
}

const CHROMIUM_CANDIDATES: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'],
  darwin: ['/Applications/Chromium.app/Contents/MacOS/Chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'],
  win32: ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe'],
};

/** `CHROME_PATH`, else the usual install locations. */
export function findChromium(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  exists: (path: string) => boolean = existsSync,
): string | null {
  if (env.CHROME_PATH) return exists(env.CHROME_PATH) ? env.CHROME_PATH : null;
  return (CHROMIUM_CANDIDATES[platform] ?? []).find(exists) ?? null;
}

/** On Linux a window needs X11 or Wayland; elsewhere there is always a desktop. */
export function hasDisplay(env: Readonly<Record<string, string | undefined>> = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** Chromium as an app window on a fresh, throwaway profile, with its background chatter off. */
export function chromiumAppArgs(url: string, userDataDir: string, options: { asRoot: boolean }): string[] {
  return [
    `--app=${url}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${userDataDir}`,
    ...(options.asRoot ? ['--no-sandbox'] : []),
  ];
}

export interface ChromiumWindow {
  child: ChildProcess;
  /** Resolves with the exit code when the window (the browser process) is gone. */
  exited: Promise<number | null>;
  close(): void;
}

export function openChromiumApp(binary: string, url: string): ChromiumWindow {
  const userDataDir = mkdtempSync(join(tmpdir(), 'hivewatch-chromium-'));
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const child = spawn(binary, chromiumAppArgs(url, userDataDir, { asRoot }), { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code));
  }).finally(() => rmSync(userDataDir, { recursive: true, force: true }));
  return {
    child,
    exited,
    close: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}
