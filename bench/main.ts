import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bulkBenchmarks } from './bulk.bench.js';
import { checkpointBenchmarks } from './checkpoint.bench.js';
import { deadHostBenchmarks, deadHostPostgresBenchmarks } from './dead-host.bench.js';
import { engineBenchmarks } from './engine.bench.js';
import { fanoutBenchmarks } from './fanout.bench.js';
import { liveBenchmarks, livePostgresBenchmarks } from './live.bench.js';
import { missedTargets, report, type Measurement } from './measure.js';
import { otelBenchmarks } from './otel.bench.js';
import { postgresErrorCountBenchmarks } from './postgres-errors.bench.js';
import { postgresWriterBenchmarks } from './postgres-writer.bench.js';
import { serveLoadBenchmarks } from './serve-load.bench.js';
import { storeBenchmarks } from './store.bench.js';
import { triageBenchmarks } from './triage/triage.bench.js';

/** The repository root, found from dist/bench/main.js and bench/main.ts alike. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
const ROOT = repositoryRoot();

/**
 * `npm run bench [-- --json] [-- --quick] [-- --only engine|store|checkpoints|live|otel|postgres|dead-host|serve-load|fanout|bulk|ui|history|triage]`.
 * Every figure with a target is judged, and a missed one makes the run exit 1 — in every bench
 * and in each `--quick` form, which judges its own (smaller) workload against its own targets.
 * Figures without a target are printed as information and never fail the run.
 * The UI figures (Chromium, a built renderer-dist/) run only with `--only ui` (the 10,000-run
 * table and a live stream through a real `serve`, then the history figures) or `--only history`
 * (issue #24's targets on a bulk history of 1,000,000 runs and errors, `--quick`: 20,000).
 * `--only postgres` runs every PostgreSQL bench (each starts its own cluster; skipped with the
 * reason when no server is installed); `--only postgres-writer` / `postgres-errors` /
 * `postgres-live` / `postgres-dead-host` runs one of them. `--only triage` times the issue page,
 * the trend sort and the cost figures at 10,000,000 errors against their rollup-free answers
 * (`--samples N`, `--baseline-samples N`, `--errors N`). docs/benches.md says what each times.
 */
const BENCHES = [
  'engine', 'store', 'checkpoints', 'live', 'otel', 'postgres', 'postgres-live', 'postgres-writer', 'postgres-errors',
  'dead-host', 'postgres-dead-host', 'serve-load', 'fanout', 'ui', 'history', 'bulk', 'triage',
];

export async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes('--json');
  const quick = argv.includes('--quick');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex === -1 ? null : (argv[onlyIndex + 1] ?? '');
  if (only !== null && !BENCHES.includes(only)) {
    // A misspelt name would otherwise run nothing and exit 0: a bench that passes by measuring nothing.
    process.stderr.write(`unknown bench "${only}": one of ${BENCHES.join(', ')}\n`);
    return 2;
  }
  if (only === 'ui' || only === 'history') {
    // The UI figures measure the real window: its production build (ui/renderer-build.ts).
    const { ensureProductionRenderer } = await import('./ui/renderer-build.js');
    ensureProductionRenderer(ROOT);
    const rest = argv.filter((arg) => arg !== '--only' && arg !== 'ui' && arg !== 'history');
    const { main: historyPerf } = await import('./ui/history-perf.js');
    if (only === 'history') return historyPerf(rest);
    const { main: uiPerf } = await import('./ui/ui-perf.js');
    const code = await uiPerf(rest);
    return (await historyPerf(rest)) || code;
  }
  const measurements: Measurement[] = [];
  if (only === null || only === 'engine') measurements.push(...(await engineBenchmarks({ quick })));
  if (only === null || only === 'store') measurements.push(...(await storeBenchmarks({ quick })));
  if (only === null || only === 'store' || only === 'checkpoints') measurements.push(...(await checkpointBenchmarks()));
  if (only === null || only === 'live') measurements.push(...(await liveBenchmarks({ quick })));
  if (only === null || only === 'otel') measurements.push(...(await otelBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-live') measurements.push(...(await livePostgresBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-writer') measurements.push(...(await postgresWriterBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-errors') measurements.push(...(await postgresErrorCountBenchmarks({ quick })));
  if (only === null || only === 'dead-host') measurements.push(...(await deadHostBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-dead-host') measurements.push(...(await deadHostPostgresBenchmarks({ quick })));
  if (only === null || only === 'serve-load') measurements.push(...(await serveLoadBenchmarks({ quick })));
  if (only === null || only === 'fanout') measurements.push(...(await fanoutBenchmarks({ quick })));
  if (only === null || only === 'bulk') measurements.push(...(await bulkBenchmarks({ quick })));
  if (only === null || only === 'triage') measurements.push(...(await triageBenchmarks(argv)));
  report(measurements, json);
  return missedTargets(measurements).length === 0 ? 0 : 1;
}
