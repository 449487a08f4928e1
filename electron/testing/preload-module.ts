import { createRequire } from 'node:module';
import { join } from 'node:path';
import { findPackageRoot } from '../../shell-common/paths.js';
import type * as Preload from '../preload.cjs';

/**
 * The compiled preload (dist/electron/preload.cjs), loaded the way Electron loads it: as
 * CommonJS. Tests use the shipped artifact rather than the .cts source (the test globalSetup
 * builds dist/ first), so what they check is exactly what the window gets.
 */
export function loadCompiledPreload(): typeof Preload {
  const path = join(findPackageRoot(), 'dist', 'electron', 'preload.cjs');
  return createRequire(import.meta.url)(path) as typeof Preload;
}
