import { engineBenchmarks } from './engine.bench.js';
import { report, type Measurement } from './measure.js';
import { storeBenchmarks } from './store.bench.js';

/** `npm run bench [-- --json] [-- --quick] [-- --only engine|store]`: ratios against same-run baselines. */
export async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes('--json');
  const quick = argv.includes('--quick');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex === -1 ? null : argv[onlyIndex + 1];
  const measurements: Measurement[] = [];
  if (only === null || only === 'engine') measurements.push(...(await engineBenchmarks({ quick })));
  if (only === null || only === 'store') measurements.push(...(await storeBenchmarks({ quick })));
  report(measurements, json);
  return 0;
}
