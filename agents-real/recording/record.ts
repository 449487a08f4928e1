import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixture } from './fixtures-io.js';
import { writeFixturesReadme } from './fixtures-readme.js';
import { installedCli } from '../cli/install.js';
import { MATRIX } from '../matrix.js';
import { CLI_PINS, type CliName } from '../pins.js';
import { runSpec, type RunRecord } from '../cli/session.js';
import { requiredShape, seenShape, shapeOf } from '../otlp/shape.js';
import { runId, type RunSpec } from '../specs.js';

/**
 * `npm run record-cli-fixtures [-- options]`: runs the pinned CLIs against the stubs and writes
 * agents-real/fixtures/. Options:
 *   --cli claude-code|codex-cli   one CLI (default both)
 *   --scenario <id>               one scenario (specs.ts)
 *   --repeat <n>                  recordings per run whose shapes are intersected (default 3; slow runs once)
 *   --no-slow                     leave out the runs that take minutes (default backoff)
 *   --jobs <n>                    runs at once (default 2)
 */

/** The runs' homes: fixed paths, so re-recorded fixtures name the same ones (each removed after its run). */
const RECORD_HOMES = join(tmpdir(), 'hivewatch-cli-record');

interface Options {
  clis: CliName[];
  scenario: string | null;
  repeat: number;
  slow: boolean;
  jobs: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { clis: ['claude-code', 'codex-cli'], scenario: null, repeat: 3, slow: true, jobs: 2 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--cli') {
      const cli = value();
      if (cli !== 'claude-code' && cli !== 'codex-cli') throw new Error(`--cli takes claude-code or codex-cli, not ${cli}`);
      options.clis = [cli];
    } else if (arg === '--scenario') options.scenario = value();
    else if (arg === '--repeat') options.repeat = Math.max(1, Number(value()) || 1);
    else if (arg === '--jobs') options.jobs = Math.max(1, Number(value()) || 1);
    else if (arg === '--no-slow') options.slow = false;
    else throw new Error(`unknown option ${String(arg)} (see agents-real/recording/record.ts)`);
  }
  return options;
}

async function recordSpec(spec: RunSpec, repeat: number): Promise<string> {
  const cli = await installedCli(spec.cli);
  if (!cli.ok) throw new Error(`${spec.cli}: ${cli.reason}`);
  const id = runId(spec);
  const homeAt = join(RECORD_HOMES, spec.cli, id);
  const records: RunRecord[] = [];
  for (let n = 0; n < (spec.slow ? 1 : repeat); n++) records.push(await runSpec(cli, spec, { homeAt }));
  const recorded = records.map((r) => ({
    shape: shapeOf({ cli: spec.cli, stdout: r.result.stdout, otlp: r.otlp }),
    exitCode: r.result.exitCode,
    killedBy: r.result.killedBy,
  }));
  const first = records[0] as RunRecord;
  const shape = { repeats: records.length, required: requiredShape(spec.cli, recorded), seen: seenShape(recorded.map((r) => r.shape)) };
  writeFixture(first, shape);
  const counts = records.map((r) => r.apiRequests.length).join('/');
  return `${spec.cli} ${id}: exit ${String(first.result.exitCode)}${first.result.killedBy ? ` (killed by ${first.result.killedBy})` : ''}, ${counts} API requests, ${first.otlp.length} OTLP exports`;
}

/** Runs `work` over `items`, `jobs` at a time, in order of start. */
async function pool<T>(items: T[], jobs: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
}

export async function main(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  const specs = options.clis
    .flatMap((cli) => MATRIX[cli])
    .filter((s) => options.scenario === null || s.scenario === options.scenario)
    .filter((s) => options.slow || !s.slow);
  for (const cli of options.clis) {
    const install = await installedCli(cli);
    if (!install.ok) {
      console.error(`cannot record ${cli}: ${install.reason}`);
      return 1;
    }
    console.log(`${cli} ${CLI_PINS[cli].version}: ${install.bin}${install.reused ? ' (cached)' : ' (installed)'}`);
  }
  let failures = 0;
  await pool(specs, options.jobs, async (spec) => {
    try {
      console.log(await recordSpec(spec, options.repeat));
    } catch (error) {
      failures++;
      console.error(`${spec.cli} ${runId(spec)}: ${(error as Error).message}`);
    }
  });
  rmSync(RECORD_HOMES, { recursive: true, force: true });
  writeFixturesReadme();
  console.log(`${specs.length - failures} runs recorded, ${failures} failed; agents-real/fixtures/README.md updated`);
  return failures === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  },
);
