import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FAULTS = join(import.meta.dirname, '..', '..', 'bin', 'faults.js');

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
