import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRendererFile, rendererFile } from './static-files.js';

// shell-common imports nothing of core/, its tests included: the folders are made and removed here.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A built window: index.html and one asset. */
function builtWindow(): string {
  const root = mkdtempSync(join(tmpdir(), 'hw-static-'));
  made.push(root);
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>w</title>');
  writeFileSync(join(root, 'assets', 'index-abc.js'), 'export {};');
  return root;
}

describe("the built window's files, as serve and Electron's app:// answer them", () => {
  it('answers a file, the app for a client-side route, and nothing for a missing asset or a path out of the folder', () => {
    const root = builtWindow();
    expect(rendererFile(root, '/')).toBe(join(root, 'index.html'));
    expect(rendererFile(root, '/assets/index-abc.js')).toBe(join(root, 'assets', 'index-abc.js'));
    expect(rendererFile(root, '/runs')).toBe(join(root, 'index.html'));
    expect(rendererFile(root, '/assets/gone.js')).toBeNull();
    expect(rendererFile(root, '/../secret.txt')).toBeNull();
    expect(rendererFile(root, '/%2e%2e/secret.txt')).toBeNull();
    expect(rendererFile(root, '/%E0%A4%A')).toBeNull();
  });

  it('reads a file whole, as it is on disk now', () => {
    const root = builtWindow();
    const file = join(root, 'assets', 'index-abc.js');
    expect(readRendererFile(file).toString('utf8')).toBe('export {};');
    writeFileSync(file, 'export const rebuilt = 1;');
    expect(readRendererFile(file).toString('utf8')).toBe('export const rebuilt = 1;');
  });
});
