import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Tests that spawn the real `hivewatch` binary (CLI, crash recovery, browser journeys) run the
 * compiled dist/, so build it once before any suite: a stale dist/ must never pass for current code.
 *
 * Runs with agent work leave what the product keeps on purpose in the temp dir (the repositories
 * made from a flow's `template:`, the worktrees an operator may still inspect). The suite removes
 * those folders when it made them, so a test run leaves its TMPDIR as it found it (CI checks).
 */
const PRODUCT_TEMP_FOLDERS = ['hivewatch-repos', 'hivewatch-worktrees'];

export default function setup(): () => void {
  const made = PRODUCT_TEMP_FOLDERS.map((name) => join(tmpdir(), name)).filter((path) => !existsSync(path));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  return () => {
    for (const path of made) rmSync(path, { recursive: true, force: true });
  };
}
