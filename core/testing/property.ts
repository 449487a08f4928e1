import fc from 'fast-check';

/**
 * Property tests run from a seed, so a failure can be replayed: each test has a fixed default
 * (a test run is reproducible, as the team's tests must be), `HIVEWATCH_FUZZ_SEED` overrides it
 * for every property at once (`npm run fuzz` passes a fresh one), and a failure names the seed
 * and the command that replays it.
 */

export const SEED_VARIABLE = 'HIVEWATCH_FUZZ_SEED';

export function propertySeed(defaultSeed: number): number {
  const given = process.env[SEED_VARIABLE];
  if (given === undefined || given === '') return defaultSeed;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`${SEED_VARIABLE} must be a whole number, got "${given}"`);
  return seed;
}

/** `fc.assert` with the seed set, and said on failure. */
export async function assertProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  options: { seed: number; numRuns: number },
): Promise<void> {
  const seed = propertySeed(options.seed);
  try {
    await fc.assert(property, { numRuns: options.numRuns, seed });
  } catch (error) {
    const replay = `replay it with ${SEED_VARIABLE}=${seed}`;
    if (error instanceof Error) error.message = `property failed with seed ${seed} (${replay})\n${error.message}`;
    throw error;
  }
}
