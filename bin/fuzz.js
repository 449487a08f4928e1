#!/usr/bin/env node
// `npm run fuzz [-- RUNS [SEED]]`: the generated-flow properties of core/engine/model run long
// (default 10,000 flows, each under three settle orders) instead of the quick count `npm test` uses.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [runs = '10000', seed] = process.argv.slice(2);
if (!/^\d+$/.test(runs) || (seed !== undefined && !/^\d+$/.test(seed))) {
  console.error('usage: npm run fuzz -- [RUNS] [SEED]');
  process.exit(2);
}
const env = {
  ...process.env,
  HIVEWATCH_FUZZ_RUNS: runs,
  HIVEWATCH_FUZZ_SUBPROCESS_RUNS: String(Math.max(4, Math.round(Number(runs) / 200))),
  ...(seed === undefined ? {} : { HIVEWATCH_FUZZ_SEED: seed }),
};
const started = Date.now();
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', 'core/engine/model', '--testTimeout', '0'], { cwd: root, env, stdio: 'inherit' });
console.log(`fuzz: ${runs} generated flows per property, ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(result.status ?? 1);
