import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowNameOf } from '../../engine/run/run-config.js';
import type { BulkResult } from '../../service/api.js';
import { narrowingKeys } from '../../service/runs/bulk-filter.js';
import { EXAMPLES_DIR } from '../../service/conformance.suite.js';
import { ApiError } from '../../common/api-errors.js';
import { FlowRefError, flowRefScope, resolveFlowRef } from '../../service/flows/ref.js';
import { createHivewatchService, type HivewatchService } from '../../service/service.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { assertProperty } from '../../testing/property.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { UsageError } from '../args.js';
import { parseWhere } from './bulk-where.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * `--where` never widens (docs/triage.md "Bulk actions"): every malformed part is refused with
 * exit 64 and the key named; a filter of statuses alone needs --all; `flow=` takes every form of a
 * flow and resolves to the same runs. The property: whatever string is added to a filter as a bad
 * key, the filter matches no run the filter without it does not (it is refused, or it narrows).
 * A real SQLite database, the real service, `main` in-process.
 */

const tempDir = tempDirs();
const T0 = Date.UTC(2026, 0, 1, 12);
const NOW = T0 + 40 * 60_000;
const FLOW = 'agent worker:\n  runtime: "fake"\n\nsession: worker\n  prompt: "x"\n';
const KEYS = 'status, flow, text, code, category, anyCode, anyCategory, since';

let dir = '';
let db = '';
let store: HivewatchStore;
let service: HivewatchService;
let cwd = '';

beforeAll(async () => {
  dir = tempDir('hw-where-');
  db = join(dir, 'hivewatch.db');
  mkdirSync(join(dir, 'flows'));
  mkdirSync(join(dir, 'elsewhere'));
  for (const name of ['a', 'b', 'x']) writeFileSync(join(dir, 'flows', `${name}.prose`), FLOW);
  writeFileSync(join(dir, 'elsewhere', 'x.prose'), FLOW);
  store = await openStore({ path: db });
  // 40 runs over two flows: completed, failed (two codes) and left running, a minute apart.
  for (let i = 0; i < 40; i++) {
    const flow = i % 2 === 0 ? 'user/a.prose' : 'user/b.prose';
    const run = new JournalBuilder(`run-${i}`, { flow, flowName: flowNameOf(flow), start: T0 + i * 60_000 }).start();
    const code = i % 4 === 1 ? 'RUNTIME_CRASHED' : 'RUNTIME_TIMEOUT';
    if (i % 4 === 0) run.runStep([{ attempts: ['ok'] }]).complete();
    else if (i % 4 !== 3) run.runStep([{ attempts: [{ code, message: `${code.toLowerCase()} in run ${i}`, origin: 'runtime:fake' }] }]).fail();
    await store.appendEvents(run.events);
  }
  for (const [id, flow] of [
    ['run-app', 'user/x.prose'],
    ['run-cli', join(dir, 'elsewhere', 'x.prose')],
  ] as const) {
    const failed = new JournalBuilder(id, { flow, flowName: 'x', start: T0 + 50 * 60_000 })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_CRASHED', origin: 'runtime:fake' }] }])
      .fail();
    await store.appendEvents(failed.events);
  }
  service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: join(dir, 'flows'), clock: 'virtual', alerts: false });
  cwd = process.cwd();
  process.chdir(dir);
});

afterAll(async () => {
  process.chdir(cwd);
  await service.close();
  await store.close();
});

async function hivewatch(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: new PassThrough(), env: {} };
  const code = await main([...argv, '--db', db], io);
  return { code, out, err };
}

/** The runs the command line's `--where` would act on (its preview), or null when it refuses the filter. */
async function matchedBy(where: string): Promise<string[] | null> {
  try {
    const filter = parseWhere(where, NOW);
    if (narrowingKeys(filter).length === 0) return null; // the CLI asks for --all
    if (filter.flow !== undefined)
      filter.flow = await resolveFlowRef(filter.flow, flowRefScope(store, { examplesDir: EXAMPLES_DIR, userFlowsDir: join(dir, 'flows') }, dir));
    return (await service.bulkRuns({ action: 'cancel', where: filter, dryRun: true })).results.map((r) => r.runId);
  } catch (error) {
    if (error instanceof UsageError || error instanceof FlowRefError || (error instanceof ApiError && error.status === 400)) return null;
    throw error;
  }
}

describe('--where refuses what does not narrow', () => {
  it.each([
    ['text=', '--where: text needs a value (text=…); an empty one would not narrow the filter'],
    ['status=running&text=%20', '--where: text needs a value (text=…); an empty one would not narrow the filter'],
    ['flow=&status=failed', '--where: flow needs a value (flow=…); an empty one would not narrow the filter'],
    ['status=', '--where: status needs a value (status=…); an empty one would not narrow the filter'],
    ['status', `--where: "status" needs a value (status=…); allowed keys: ${KEYS}`],
    ['status=failed,&flow=a', '--where: status has an empty entry in "failed,"; list statuses with single commas: status=failed,cancelled'],
    ['flow=a&&status=failed', '--where: an empty condition (two "&" in a row, or one at either end); join key=value pairs with single "&"s'],
    ['a&&b', '--where: an empty condition (two "&" in a row, or one at either end); join key=value pairs with single "&"s'],
    ['flow=a&', '--where: an empty condition (two "&" in a row, or one at either end); join key=value pairs with single "&"s'],
    ['owner=me&flow=a', `--where: unknown key "owner"; allowed keys: ${KEYS}`],
    ['flow=a&flow=b', '--where: "flow" given more than once (list statuses with commas: status=failed,cancelled)'],
    ['text=100%', '--where: "text=100%" holds a broken %-escape; write %25 for a literal %'],
    ['since=soon', '--where: since must be an age like 30m, 24h or 7d, got "soon"'],
    ['since=3651d', '--where: since must be at most 3650d, got "3651d"'],
    ['status=failed', "--where 'status=failed' names no flow, text, error or time, so it would cancel every failed run; add --all if that is what you mean"],
    [
      'status=failed,cancelled',
      "--where 'status=failed,cancelled' names no flow, text, error or time, so it would cancel every failed or cancelled run; add --all if that is what you mean",
    ],
    [
      'status=failed&flow=nope',
      '--where: flow: no flow is named "nope": no run has that name and neither flows folder holds nope.prose; give the name `hivewatch runs` shows, the flow file’s path, or its id (examples/<file>.prose, user/<file>.prose)',
    ],
    [
      'status=sleeping&flow=a',
      '--where: status[0]: must be one of queued, running, cancelling, completed, failed, cancelled, interrupted, waiting-limit, waiting-approval',
    ],
    ['code=nope&flow=a', '--where: code: must be an error code like RUNTIME_TIMEOUT'],
  ])('cancel --where %j: exit 64, and the line names what is wrong', async (where, message) => {
    expect(await hivewatch('cancel', '--where', where, '--yes')).toEqual({ code: 64, out: '', err: `hivewatch cancel: ${message}\n` });
  });

  it('--all says "every run of these statuses"; alone it takes the statuses the action can act on', async () => {
    const failed = JSON.parse((await hivewatch('cancel', '--where', 'status=failed', '--all', '--yes', '--json')).out) as BulkResult;
    expect(failed).toMatchObject({ matched: 22, done: 0, refused: 22 });
    const all = await hivewatch('cancel', '--all', '--json');
    expect(all.code).toBe(64);
    expect(all.err).toBe('hivewatch cancel: 10 runs match and stdin is not a terminal, so nothing was asked and nothing was done; add --yes to cancel them\n');
    expect((JSON.parse(all.out) as BulkResult).results.map((r) => r.runId).sort()).toEqual(
      [3, 7, 11, 15, 19, 23, 27, 31, 35, 39].map((i) => `run-${i}`).sort(),
    );
    expect(await hivewatch('cancel', 'run-3', '--all')).toEqual({ code: 64, out: '', err: 'hivewatch cancel: give run ids or --all, not both\n' });
  });

  it('flow= takes the name, the window id, an absolute path and a path relative to this directory, and resolves them to the same runs', async () => {
    const runsOf = async (flow: string): Promise<string[]> => {
      const result = await hivewatch('cancel', '--where', `status=failed&flow=${encodeURIComponent(flow)}`, '--json');
      return (JSON.parse(result.out.split('\n')[0] ?? '') as BulkResult).results.map((r) => r.runId).sort();
    };
    expect(await runsOf('x')).toEqual(['run-app', 'run-cli']);
    for (const form of ['user/x.prose', join(dir, 'flows', 'x.prose'), 'flows/x.prose', './flows/x.prose'])
      expect(await runsOf(form), form).toEqual(['run-app']);
    for (const form of [join(dir, 'elsewhere', 'x.prose'), 'elsewhere/x.prose']) expect(await runsOf(form), form).toEqual(['run-cli']);
    expect((await runsOf('a')).length).toBe(10);
  });
});

describe('--where never widens: the property', () => {
  const BASES = [
    'flow=a',
    'flow=user/b.prose',
    'text=run-1',
    'code=RUNTIME_CRASHED',
    'category=runtime',
    'anyCode=RUNTIME_TIMEOUT',
    'since=30m',
    'status=failed&flow=a',
    'status=running,failed&text=run-2',
    'flow=x',
  ];
  const PIECES = [
    'status',
    'flow',
    'text',
    'code',
    'since',
    'anyCategory',
    'owner',
    '=',
    '&',
    '&&',
    ',',
    '%',
    '%2',
    '%20',
    '+',
    ' ',
    'failed',
    'running',
    'a',
    'x',
    'RUNTIME_CRASHED',
    '5m',
    '0d',
    'user/a.prose',
    '..',
    '/',
  ];
  // Any string; fragments of the syntax in any order; and key=value pairs, valid or not, that the filter may already have.
  const pair = fc
    .tuple(
      fc.constantFrom('status', 'flow', 'text', 'code', 'category', 'anyCode', 'since', 'owner', ''),
      fc.constantFrom('failed', 'completed', 'running', 'a', 'b', 'x', 'run-3', 'RUNTIME_TIMEOUT', 'runtime', '20m', '', ' ', '%'),
    )
    .map(([key, value]) => `${key}=${value}`);
  const junk = fc.oneof(
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
    { arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((parts) => parts.join('')), weight: 1 },
    { arbitrary: pair, weight: 3 },
  );

  it('random strings added as a bad key never make a filter match more runs than the filter without them', async () => {
    const baseline = new Map<string, Set<string>>();
    for (const base of BASES) {
      const runs = await matchedBy(base);
      expect(runs, base).not.toBeNull();
      expect(runs!.length, `${base} matches ${JSON.stringify(runs)}`).toBeGreaterThan(0);
      baseline.set(base, new Set(runs));
    }
    let refused = 0;
    let narrowed = 0;
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...BASES), junk, fc.boolean(), async (base, bad, before) => {
        const runs = await matchedBy(before ? `${bad}&${base}` : `${base}&${bad}`);
        if (runs === null) refused++;
        else {
          narrowed++;
          const allowed = baseline.get(base)!;
          expect(
            runs.filter((id) => !allowed.has(id)),
            `${base} + ${JSON.stringify(bad)}`,
          ).toEqual([]);
        }
      }),
      { seed: 3_701, numRuns: 1_000 },
    );
    // Both outcomes were exercised: refusals, and junk that happened to be a narrower filter.
    expect(refused).toBeGreaterThan(0);
    expect(narrowed).toBeGreaterThan(0);
  }, 60_000);
});
