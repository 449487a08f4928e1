import { spawn } from 'node:child_process';
import { startAgentProcess } from '../../core/runtimes/process/spawner.js';
import { timeIt, type Measurement } from '../harness/measure.js';
import { durableRun, fanOut, journalAlone, median } from './engine-runs.js';
import { noopBenchmarks } from './noop.bench.js';

/**
 * Engine overhead: what the engine adds to the work its sessions do, with the
 * events going where a real run's go — the durable sink into a SQLite journal (the store `serve`
 * and `hivewatch run` open).
 *
 * 1. N command sessions of `/bin/true`, concurrency 2, timed until the sink's close returns
 *    (every event committed), against the work the run needs done apart from the engine's own:
 *    the same processes started two at a time through the same process layer (the spawner,
 *    core/runtimes/process/spawner.ts), plus the batches the run's sink wrote appended alone. The
 *    process layer is judged on its own against a bare Node loop spawning the same processes
 *    (`/bin/true`, stdin ignored, stdout and stderr piped and drained, its own process group),
 *    two at a time, each awaited until it closes: what forking from a small helper costs.
 * 2. N noop sessions (no process): the engine's cost per task beside its journal's (noop.bench.ts).
 *
 * Every trial starts on a fresh database (opened and removed untimed); the figure is the median
 * of the trials, and the trials alternate so a neighbour's burst falls on every side.
 * `--quick`: 200 spawns, five trials; judged against the quick bounds below. Why the baselines
 * are these: docs/benches.md, "Engine overhead".
 */

/** The full form's targets. */
const ENGINE_RATIO_TARGET = 1.25;
const SPAWNER_RATIO_TARGET = 1.5;
/**
 * The quick form's bounds (what CI runs beside other work; docs/benches.md "Quick forms" says
 * what they catch): against the same run's baselines, over five alternating trials of 200
 * sessions (about a second each, so three let one burst set the median).
 */
const QUICK_ENGINE_RATIO = 1.8;
const QUICK_SPAWNER_RATIO = 2;
const QUICK_SPAWN_TRIALS = 5;

/** The process the command runtime starts for `command: "/bin/true"`, spawned the same way. */
function spawnTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** The same process started by the process layer the command runtime uses, without the engine. */
function spawnerTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const agent = startAgentProcess({ command: '/bin/true', args: [], cwd: process.cwd(), env: process.env });
    agent.on('error', (failure) => reject(new Error(`${failure.code}: ${failure.message}`)));
    agent.on('lost', () => reject(new Error('the spawner ended while /bin/true ran')));
    agent.on('close', () => resolve());
  });
}

async function spawnLoop(n: number, concurrency: number, one: () => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function engineBenchmarks(options: { quick: boolean }): Promise<Measurement[]> {
  const trials = 3;
  const out = await commandFigures(options.quick, options.quick ? QUICK_SPAWN_TRIALS : trials);
  out.push(...(await noopBenchmarks(options.quick, trials)));
  return out;
}

async function commandFigures(quick: boolean, trials: number): Promise<Measurement[]> {
  const spawns = quick ? 200 : 1000;
  const commandPlan = fanOut(spawns, 'tru');
  const t = { bare: [] as number[], spawner: [] as number[], engine: [] as number[], journal: [] as number[], events: 0 };
  // The spawner is started on first use: once here, untimed, so no trial's figure holds its start.
  await spawnerTrue();
  for (let i = 0; i < trials; i++) {
    t.bare.push(await timeIt(() => spawnLoop(spawns, 2, spawnTrue)));
    t.spawner.push(await timeIt(() => spawnLoop(spawns, 2, spawnerTrue)));
    const run = await durableRun(commandPlan, 2);
    t.engine.push(run.ms);
    t.events = run.events;
    t.journal.push(await journalAlone(run.batches));
  }
  const list = (values: readonly number[]): string => values.map((v) => v.toFixed(0)).join(' / ');
  const apart = median(t.spawner) + median(t.journal);
  const engineRatio = median(t.engine) / apart;
  const spawnerRatio = median(t.spawner) / median(t.bare);
  const engineBound = quick ? QUICK_ENGINE_RATIO : ENGINE_RATIO_TARGET;
  const spawnerBound = quick ? QUICK_SPAWNER_RATIO : SPAWNER_RATIO_TARGET;
  const quickNote = (full: number): string => (quick ? ` (--quick; ${full}× in the full run)` : '');
  return [
    {
      name: `${spawns} /bin/true sessions, conc. 2, SQLite journal vs their spawns through the process layer + the journal's writes alone`,
      value: median(t.engine),
      unit: 'ms',
      baseline: apart,
      ratio: engineRatio,
      target: `≤ ${engineBound}× the process layer's spawns plus the journal's writes alone${quickNote(ENGINE_RATIO_TARGET)}`,
      pass: engineRatio <= engineBound,
      note:
        `medians of ${trials} alternating trials: engine run + durable sink close ${list(t.engine)} ms (${t.events} events journaled), ` +
        `the process layer's spawns ${list(t.spawner)} ms, the same batches appended alone ${list(t.journal)} ms`,
    },
    {
      name: `${spawns} /bin/true through the process layer (the spawner), conc. 2, vs bare spawns`,
      value: median(t.spawner),
      unit: 'ms',
      baseline: median(t.bare),
      ratio: spawnerRatio,
      target: `≤ ${spawnerBound}× a bare Node loop spawning the same processes${quickNote(SPAWNER_RATIO_TARGET)}`,
      pass: spawnerRatio <= spawnerBound,
      note: `medians of ${trials} alternating trials: through the spawner ${list(t.spawner)} ms, bare spawn loop ${list(t.bare)} ms`,
    },
  ];
}
