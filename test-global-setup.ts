import { execFileSync } from 'node:child_process';

/**
 * Tests that spawn the real `hivewatch` binary (CLI, crash recovery, browser journeys) run the
 * compiled dist/, so build it once before any suite: a stale dist/ must never pass for current code.
 * It is built from empty (bin/clean-build.js), as `npm run build` does, so nothing removed from the
 * sources lingers in it.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['bin/clean-build.js', 'dist'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
