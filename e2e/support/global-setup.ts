import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The browser journeys drive the built window (renderer-dist/, what `hivewatch serve` serves):
 * rebuild it before any suite when a renderer source is newer than the build, so a stale build
 * never passes for current code (and an unchanged tree costs nothing).
 */

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export function rendererIsStale(root = process.cwd()): boolean {
  const built = join(root, 'renderer-dist', 'index.html');
  if (!existsSync(built)) return true;
  const sources = Math.max(newestMtime(join(root, 'renderer')), statSync(join(root, 'vite.config.ts')).mtimeMs);
  if (sources > statSync(built).mtimeMs) return true;
  // A development build (made under NODE_ENV=test before this setup set production) is stale too.
  const assets = join(root, 'renderer-dist', 'assets');
  return existsSync(assets) && readdirSync(assets).some((name) => name.endsWith('.js') && readFileSync(join(assets, name), 'utf8').includes('jsxDEV'));
}

export default function setup(): void {
  if (!rendererIsStale()) return;
  // Vitest sets NODE_ENV=test, which vite build would inherit and answer with React's development
  // build: the journeys (and the benches, which reuse renderer-dist/) drive the production one.
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
}
