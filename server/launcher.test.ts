import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectElectron } from './launcher.js';

/**
 * One machine can only install one layout of the optional `electron` package, so each layout npm
 * can leave is built here in a temp folder: absent (its download failed and npm dropped it),
 * present without a binary (ELECTRON_SKIP_BINARY_DOWNLOAD), present with `path.txt` but no file,
 * and complete.
 */
type Layout = 'absent' | 'no-binary' | 'path-without-file' | 'complete';

const roots: string[] = [];
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function projectWith(layout: Layout): string {
  const root = mkdtempSync(join(tmpdir(), 'hivewatch-electron-layout-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0' }));
  if (layout === 'absent') return root;
  const pkg = join(root, 'node_modules', 'electron');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'electron', version: '38.0.0', main: 'index.js' }));
  writeFileSync(join(pkg, 'index.js'), 'module.exports = "";\n');
  if (layout === 'no-binary') return root;
  writeFileSync(join(pkg, 'path.txt'), 'electron');
  if (layout === 'path-without-file') return root;
  mkdirSync(join(pkg, 'dist'));
  writeFileSync(join(pkg, 'dist', 'electron'), '#!/bin/sh\n');
  chmodSync(join(pkg, 'dist', 'electron'), 0o755);
  return root;
}

function overrideDir(withBinary: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-electron-dist-'));
  roots.push(dir);
  if (withBinary) writeFileSync(join(dir, 'electron'), '#!/bin/sh\n');
  return dir;
}

describe('detectElectron over every layout npm can leave', () => {
  it('the package absent: says it is not installed, whatever the override', () => {
    const root = projectWith('absent');
    expect(detectElectron(root, {}, 'linux')).toEqual({ ok: false, reason: 'the electron package is not installed' });
    expect(detectElectron(root, { ELECTRON_OVERRIDE_DIST_PATH: overrideDir(true) }, 'linux')).toEqual({
      ok: false,
      reason: 'the electron package is not installed',
    });
  });

  it('the package without its binary: says the download did not happen', () => {
    expect(detectElectron(projectWith('no-binary'), {}, 'linux')).toEqual({
      ok: false,
      reason: "Electron's binary was not downloaded (no electron/path.txt)",
    });
  });

  it('path.txt written but the file gone: names the missing file', () => {
    const root = projectWith('path-without-file');
    expect(detectElectron(root, {}, 'linux')).toEqual({
      ok: false,
      reason: `Electron's binary is missing (${join(root, 'node_modules', 'electron', 'dist', 'electron')})`,
    });
  });

  it('a complete install: finds the binary', () => {
    const root = projectWith('complete');
    expect(detectElectron(root, {}, 'linux')).toEqual({ ok: true, binary: join(root, 'node_modules', 'electron', 'dist', 'electron') });
  });

  it('ELECTRON_OVERRIDE_DIST_PATH wins over path.txt, and only where it holds the binary', () => {
    for (const layout of ['no-binary', 'complete'] as const) {
      const root = projectWith(layout);
      const empty = overrideDir(false);
      expect(detectElectron(root, { ELECTRON_OVERRIDE_DIST_PATH: empty }, 'linux')).toEqual({
        ok: false,
        reason: 'ELECTRON_OVERRIDE_DIST_PATH has no electron',
      });
      const full = overrideDir(true);
      expect(detectElectron(root, { ELECTRON_OVERRIDE_DIST_PATH: full }, 'linux')).toEqual({ ok: true, binary: join(full, 'electron') });
    }
  });
});
