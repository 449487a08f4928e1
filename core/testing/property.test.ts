import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { assertProperty, propertySeed, SEED_VARIABLE } from './property.js';

describe('seeded property tests', () => {
  const saved = process.env[SEED_VARIABLE];
  afterEach(() => {
    if (saved === undefined) delete process.env[SEED_VARIABLE];
    else process.env[SEED_VARIABLE] = saved;
  });

  it('use the default seed, or the one HIVEWATCH_FUZZ_SEED gives; refuse one that is not a number', () => {
    delete process.env[SEED_VARIABLE];
    expect(propertySeed(7)).toBe(7);
    process.env[SEED_VARIABLE] = '42';
    expect(propertySeed(7)).toBe(42);
    process.env[SEED_VARIABLE] = 'soon';
    expect(() => propertySeed(7)).toThrow('HIVEWATCH_FUZZ_SEED must be a whole number, got "soon"');
  });

  it('name the seed of a failure, and the same seed finds the same counterexample', async () => {
    delete process.env[SEED_VARIABLE];
    const seen: number[] = [];
    const failing = (): fc.IProperty<[number]> =>
      fc.property(fc.integer({ min: 0, max: 1000 }), (n) => {
        seen.push(n);
        return n < 900;
      });
    const first = await assertProperty(failing(), { seed: 12345, numRuns: 500 }).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(first?.message).toMatch(/^property failed with seed 12345 \(replay it with HIVEWATCH_FUZZ_SEED=12345\)\n/);
    const firstRun = [...seen];
    seen.length = 0;
    process.env[SEED_VARIABLE] = '12345';
    const again = await assertProperty(failing(), { seed: 1, numRuns: 500 }).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(again?.message).toContain('seed 12345');
    expect(seen).toEqual(firstRun);
  });
});
