import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bulkBenchmarks } from './api/bulk.bench.js';
import { checkpointBenchmarks } from './engine/checkpoint.bench.js';
import { deadHostBenchmarks, deadHostPostgresBenchmarks } from './hosts/dead-host.bench.js';
import { engineBenchmarks } from './engine/engine.bench.js';
import { fanoutBenchmarks } from './api/fanout.bench.js';
import { liveBenchmarks, livePostgresBenchmarks } from './hosts/live.bench.js';
import { BENCH_USAGE, BenchFlagError, parseBenchFlags, wholeOption, type BenchFlags } from './harness/flags.js';
import { missedTargets, report, type Measurement } from './harness/measure.js';
import { otelBenchmarks } from './otel/otel.bench.js';
import { postgresErrorCountBenchmarks } from './postgres/postgres-errors.bench.js';
import { postgresWriterBenchmarks } from './postgres/postgres-writer.bench.js';
import { serveLoadBenchmarks } from './api/serve-load.bench.js';
import { storeBenchmarks } from './store/store.bench.js';
import { triageBenchmarks } from './triage/triage.bench.js';

/** The repository root, found from dist/bench/main.js and bench/main.ts alike. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
const ROOT = repositoryRoot();

/**
 * `npm run bench [-- --json] [-- --quick] [-- --only NAME]` (bench/harness/flags.ts parses and refuses
 * what it does not know). Every figure with a target is judged, and a missed one makes the run
 * exit 1 — in every bench and in each `--quick` form, which judges its own (smaller) workload
 * against its own targets. Figures without a target are printed as information and never fail.
 * The UI figures (Chromium, a built renderer-dist/) run only with `--only ui` (the 10,000-run
 * table and a live stream through a real `serve`, then the history figures) or `--only history`
 * (a bulk history of 1,000,000 runs and errors, `--quick`: 20,000).
 * `--only postgres` runs every PostgreSQL bench (each starts its own cluster; skipped with the
 * reason when no server is installed). `--only triage` times the issue page, the trend sort and
 * the cost figures at 10,000,000 errors against their rollup-free answers. docs/benches.md says
 * what each times.
 */
export async function main(argv: readonly string[]): Promise<number> {
  // The benches' processes keep what they keep in the OS data directory (a team database's
  // flows folder) in one of their own, removed at the end: never in the operator's.
  const dataHome = mkdtempSync(join(tmpdir(), 'hivewatch-bench-data-'));
  const before = process.env.XDG_DATA_HOME;
  process.env.XDG_DATA_HOME = dataHome;
  try {
    return await benches(argv);
  } finally {
    if (before === undefined) delete process.env.XDG_DATA_HOME;
    else process.env.XDG_DATA_HOME = before;
    rmSync(dataHome, { recursive: true, force: true });
  }
}

async function benches(argv: readonly string[]): Promise<number> {
  let flags: BenchFlags;
  let postgresErrors: number | undefined;
  try {
    flags = parseBenchFlags(argv);
    if (flags.kind === 'run') postgresErrors = errorsOption(flags.benchArgs);
  } catch (error) {
    if (!(error instanceof BenchFlagError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${BENCH_USAGE}\n`);
    return 2;
  }
  if (flags.kind === 'help') {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  const { quick, json, only, benchArgs } = flags;
  if (only === 'ui' || only === 'history') {
    // The UI figures measure the real window: its production build (ui/renderer-build.ts).
    const { ensureProductionRenderer } = await import('./ui/renderer-build.js');
    ensureProductionRenderer(ROOT);
    const { main: historyPerf } = await import('./ui/history-perf.js');
    if (only === 'history') return historyPerf(benchArgs);
    const { main: uiPerf } = await import('./ui/ui-perf.js');
    const code = await uiPerf(benchArgs);
    return (await historyPerf(benchArgs)) || code;
  }
  const measurements: Measurement[] = [];
  if (only === null || only === 'engine') measurements.push(...(await engineBenchmarks({ quick })));
  if (only === null || only === 'store') measurements.push(...(await storeBenchmarks({ quick })));
  if (only === null || only === 'store' || only === 'checkpoints') measurements.push(...(await checkpointBenchmarks()));
  if (only === null || only === 'live') measurements.push(...(await liveBenchmarks({ quick })));
  if (only === null || only === 'otel') measurements.push(...(await otelBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-live') measurements.push(...(await livePostgresBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-writer') measurements.push(...(await postgresWriterBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-errors')
    measurements.push(...(await postgresErrorCountBenchmarks({ quick, errors: postgresErrors })));
  if (only === null || only === 'dead-host') measurements.push(...(await deadHostBenchmarks({ quick })));
  if (only === null || only === 'postgres' || only === 'postgres-dead-host') measurements.push(...(await deadHostPostgresBenchmarks({ quick })));
  if (only === null || only === 'serve-load') measurements.push(...(await serveLoadBenchmarks({ quick })));
  if (only === null || only === 'fanout') measurements.push(...(await fanoutBenchmarks({ quick })));
  if (only === null || only === 'bulk') measurements.push(...(await bulkBenchmarks({ quick })));
  if (only === null || only === 'triage') measurements.push(...(await triageBenchmarks(benchArgs)));
  report(measurements, json);
  return missedTargets(measurements).length === 0 ? 0 : 1;
}

/** `--errors N` when it was given (flags.ts lets only the benches that read it take it), else undefined. */
function errorsOption(benchArgs: readonly string[]): number | undefined {
  const at = benchArgs.indexOf('--errors');
  return at === -1 ? undefined : wholeOption(benchArgs[at + 1] ?? '', 'errors', 0);
}
