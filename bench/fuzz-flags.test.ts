import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FUZZ = join(import.meta.dirname, '..', 'bin', 'fuzz.js');

/** `npm run fuzz` refuses a command line it cannot take before it starts vitest (exit 2, usage). */
describe('npm run fuzz flags', () => {
  it.each([
    [['--quik'], "fuzz: Unknown option '--quik'"],
    [['10', '7', '3'], 'fuzz: at most 2 arguments, got 3'],
    [['ten'], 'fuzz: RUNS must be a whole number, not "ten"'],
    [['10', 'x'], 'fuzz: SEED must be a whole number, not "x"'],
  ])('%j is refused', (args, message) => {
    const result = spawnSync(process.execPath, [FUZZ, ...args], { encoding: 'utf8' });
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('usage: npm run fuzz -- [RUNS] [SEED]');
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
  });
});
