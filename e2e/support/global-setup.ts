import { ensureProductionRenderer } from '../../bench/ui/renderer-build.js';

/**
 * The browser journeys drive the built window (renderer-dist/, what `hivewatch serve` serves):
 * rebuilt before any suite when it is stale (bench/ui/renderer-build.ts says when), so a stale
 * build never passes for current code. Vitest sets NODE_ENV=test, which `vite build` would
 * inherit and answer with React's development build; the build there sets production.
 */
export default function setup(): void {
  ensureProductionRenderer(process.cwd());
}
