import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The window the UI benches time and the journeys drive (e2e/support/global-setup.ts) must be
 * the one operators get: a production build of the renderer. `vite build` run under Vitest (the journeys' global setup) inherited
 * NODE_ENV=test and wrote React's development build (jsxDEV, StrictMode's doubled effects, so
 * every request of a screen sent twice), and the benches reused whatever renderer-dist/ held.
 * Rebuilt here, with NODE_ENV=production, when it is missing, older than a source it bundles or the
 * Vite config, or a development build; an unchanged tree costs nothing.
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

/** Whether renderer-dist/ holds React's development build (its JSX runtime's dev entry point). */
function isDevelopmentBuild(root: string): boolean {
  const assets = join(root, 'renderer-dist', 'assets');
  if (!existsSync(assets)) return false;
  return readdirSync(assets).some((name) => name.endsWith('.js') && readFileSync(join(assets, name), 'utf8').includes('jsxDEV'));
}

/**
 * What the window's bundle is built from: its own sources and the shared pure layer it imports
 * values from (core/common, and what that reaches of core/base).
 */
const BUNDLED = ['renderer', 'core/common', 'core/base'];

/** Missing, older than a bundled source or the Vite config, or a development build. */
function rendererIsStale(root: string): boolean {
  const index = join(root, 'renderer-dist', 'index.html');
  if (!existsSync(index)) return true;
  const sources = Math.max(...BUNDLED.map((dir) => newestMtime(join(root, dir))), statSync(join(root, 'vite.config.ts')).mtimeMs);
  return sources > statSync(index).mtimeMs || isDevelopmentBuild(root);
}

/** Builds renderer-dist/ with NODE_ENV=production unless it is current; throws when the build fails. */
export function ensureProductionRenderer(root: string): void {
  if (!rendererIsStale(root)) return;
  const built = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (built.status !== 0 || isDevelopmentBuild(root)) throw new Error('could not build the production renderer into renderer-dist/');
}
