import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Tests that spawn the real `hivewatch` binary (CLI, crash recovery, browser journeys) run the
 * compiled dist/, so build it once before any suite: a stale dist/ must never pass for current code.
 *
 * What the product keeps in the temp dir on purpose (the repositories made from a flow's
 * `template:`, the worktrees an operator may still inspect) is never made in the shared temp dir
 * by a test: the tests give the engine a worktree folder of their own, and the processes they
 * start a TMPDIR of their own. So nothing here removes those folders at the end, which would take
 * them from another test run (or a real Hivewatch) using the same temp dir at the same time.
 *
 * Nor does a test write into the operator's own data directory (the default database, a team
 * database's flows): the suite's processes, and every process they start, have an XDG_DATA_HOME
 * of the suite's own (set here, before the test processes fork), removed at the end. A journey's
 * `serve` gets one of its own besides (e2e/support/server.ts).
 */
export default function setup(): () => void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  const codexDaemonDir = `/tmp/codex-daemon-${process.getuid?.() ?? 0}`;
  const hadCodexDaemonDir = existsSync(codexDaemonDir);
  const dataHome = mkdtempSync(join(tmpdir(), 'hivewatch-test-data-'));
  process.env.XDG_DATA_HOME = dataHome;
  return () => {
    rmSync(dataHome, { recursive: true, force: true });
    // The real Codex CLI makes this folder in /tmp whatever TMPDIR says. Removed only when the
    // suite made it and it is empty: a Codex still running (a user's own) keeps its files there.
    if (!hadCodexDaemonDir) {
      try {
        rmdirSync(codexDaemonDir);
      } catch {
        // Absent (no real Codex ran) or in use: left as it is.
      }
    }
  };
}
