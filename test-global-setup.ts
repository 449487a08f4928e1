import { execFileSync } from 'node:child_process';

/**
 * Tests that spawn the real `hivewatch` binary (CLI, crash recovery, browser journeys) run the
 * compiled dist/, so build it once before any suite: a stale dist/ must never pass for current code.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
