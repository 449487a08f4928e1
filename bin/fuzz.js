#!/usr/bin/env node
// `npm run fuzz [-- RUNS [SEED]]`: the generated-flow properties of core/engine/model run long
// (default 10,000 flows, each under three settle orders) instead of the quick count `npm test` uses.
// Without a SEED every property starts from a fresh one, printed first and last, so any run can
// be replayed (`npm run fuzz -- RUNS SEED`, or HIVEWATCH_FUZZ_SEED=SEED with npx vitest).
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const USAGE = 'usage: npm run fuzz -- [RUNS] [SEED]';
/** Two optional whole numbers and no option: anything else is refused, never run with a default. */
function parse(argv) {
  let positionals;
  try {
    ({ positionals } = parseArgs({ args: argv, options: {}, strict: true, allowPositionals: true }));
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  if (positionals.length > 2) return { error: `at most 2 arguments, got ${positionals.length}` };
  const [runs = '10000', seed] = positionals;
  for (const [name, text] of [
    ['RUNS', runs],
    ['SEED', seed],
  ])
    if (text !== undefined && !/^\d+$/.test(text)) return { error: `${name} must be a whole number, not "${text}"` };
  return { runs, given: seed };
}
const parsed = parse(process.argv.slice(2));
if ('error' in parsed) {
  console.error(`fuzz: ${parsed.error}\n${USAGE}`);
  process.exit(2);
}
const { runs, given } = parsed;
const seed = given ?? String(randomInt(1, 2 ** 31 - 1));
console.log(`fuzz: ${runs} generated flows per property, seed ${seed}`);
const env = {
  ...process.env,
  HIVEWATCH_FUZZ_RUNS: runs,
  HIVEWATCH_FUZZ_SUBPROCESS_RUNS: String(Math.max(4, Math.round(Number(runs) / 200))),
  HIVEWATCH_FUZZ_SEED: seed,
};
const started = Date.now();
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', 'core/engine/model', '--testTimeout', '0'], { cwd: root, env, stdio: 'inherit' });
const outcome = result.status === 0 ? 'no failures' : `FAILED (replay: npm run fuzz -- ${runs} ${seed})`;
console.log(`fuzz: ${runs} generated flows per property, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(1)} s, ${outcome}`);
process.exit(result.status ?? 1);
