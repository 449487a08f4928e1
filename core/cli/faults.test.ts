import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FAULTS = join(ROOT, 'bin', 'faults.js');

// The fault harness uses test support (throwaway PostgreSQL clusters, seeded randomness), which
// only dist-dev/ holds (docs/architecture.md "Nothing of the tests in the product"); the global
// setup builds dist/ alone, so this suite builds dist-dev/ as `npm run faults` does.
beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'bin', 'clean-build.js'), 'dist-dev'], { cwd: ROOT, stdio: 'inherit' });
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.dev.json'], { cwd: ROOT, stdio: 'inherit' });
}, 180_000);

/**
 * The quick form of `npm run faults` (3 kill -9 trials of `hivewatch run` and 3 of `hivewatch
 * serve`, same seed as the full run): integrity, printed ⇒ journaled, interrupted, no agent left
 * after recovery, resume completes. The full 20 + 20 trials are `npm run faults`.
 */
describe('kill -9 fault trials (quick)', () => {
  it('every trial of run and serve holds', () => {
    const result = spawnSync(process.execPath, [FAULTS, '--quick'], { encoding: 'utf8', timeout: 170_000 });
    const summary = result.stdout.split('\n').filter((line) => line.startsWith('faults: kill -9'));
    expect(summary, result.stdout + result.stderr).toEqual([
      expect.stringMatching(/^faults: kill -9 of run: 3 trials, 0 failures /),
      expect.stringMatching(/^faults: kill -9 of serve: 3 trials, 0 failures /),
    ]);
    expect(result.status).toBe(0);
  }, 180_000);
});
