import { beforeAll, expect, it } from 'vitest';
import { readFixture } from './recording/fixtures-io.js';
import type { CliInstall } from './cli/install.js';
import { MATRIX } from './matrix.js';
import { CLI_PINS, type CliName } from './pins.js';
import { runSpec, type RunRecord } from './cli/session.js';
import { missingFrom, newIn, requiredShape, shapeOf } from './otlp/shape.js';
import { runId, type RunSpec, type ScenarioId } from './specs.js';

/**
 * What the live suites share: the title that says why a suite is skipped, the runs of a set of
 * scenarios (all at once before the tests, a few at a time), and one test per run comparing its
 * shape with the recorded fixture's.
 */

/** Runs at once: they mostly wait (backoffs, timeouts), but each CLI start costs a core for a second. */
const CONCURRENCY = 3;

export function liveTitle(cli: CliName, install: CliInstall, what: string): string {
  const pin = CLI_PINS[cli];
  const head = `${pin.pkg} ${pin.version} against the local ${cli === 'claude-code' ? 'Anthropic' : 'OpenAI'} stub: ${what}`;
  return install.ok ? head : `${head} — skipped: the CLI could not be installed (${install.reason})`;
}

export interface LiveRuns {
  /** The record of a run id (fails the calling test, naming why, when the run did not happen). */
  get(id: string): RunRecord;
  specs: RunSpec[];
}

export function liveRuns(cli: CliName, install: CliInstall, scenarios: readonly ScenarioId[]): LiveRuns {
  const specs = MATRIX[cli].filter((s) => !s.slow && scenarios.includes(s.scenario));
  const records = new Map<string, RunRecord>();
  const failures = new Map<string, string>();
  beforeAll(async () => {
    if (!install.ok) return;
    console.info(`${cli} ${install.version}: ${install.reused ? 'the cached copy' : 'installed now'}, ${install.bin}`);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < specs.length) {
        const spec = specs[next++] as RunSpec;
        try {
          records.set(runId(spec), await runSpec(install, spec));
        } catch (error) {
          failures.set(runId(spec), (error as Error).message);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }, 15 * 60_000);
  return {
    specs,
    get(id) {
      const record = records.get(id);
      if (record) return record;
      throw new Error(`run ${id} has no record: ${failures.get(id) ?? "it is not among the suite's scenarios (agents-real/matrix.ts)"}`);
    },
  };
}

/** One test per run: what its fixture's recordings all had, the fresh run has too. */
export function shapeTests(cli: CliName, runs: LiveRuns): void {
  for (const spec of runs.specs) {
    const id = runId(spec);
    it(`${id}: prints and exports what the recorded fixture's runs all did`, () => {
      const fixture = readFixture(cli, id);
      if (!fixture) throw new Error(`no fixture agents-real/fixtures/${cli}/${id}: record it with npm run record-cli-fixtures`);
      const record = runs.get(id);
      const fresh = shapeOf({ cli, stdout: record.result.stdout, otlp: record.otlp });
      // New names are a newer CLI's additions: worth a look, not a failure (the mapping ignores
      // unknown names). Only where they cannot be timing: the parts requiredShape keeps.
      const steady = requiredShape(cli, [{ shape: fresh, exitCode: record.result.exitCode, killedBy: record.result.killedBy }]);
      const added = newIn(fixture.shape.seen, steady);
      if (added.length > 0) console.info(`${cli} ${id}, new since the fixture (${fixture.run.cliVersion}): ${added.join('; ')}`);
      // The timing policy again, over what was stored: one made stricter since the recording
      // takes effect without recording again (it only ever leaves things out).
      const required = requiredShape(cli, [{ shape: fixture.shape.required, exitCode: fixture.run.exitCode, killedBy: fixture.run.killedBy }]);
      const moved = missingFrom(required, fresh);
      expect(moved, `${cli} ${record.cliVersion} vs the fixture recorded with ${fixture.run.cliVersion}`).toEqual([]);
    });
  }
}
