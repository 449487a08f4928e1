import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appFlowsDirOf, bundledExamplesDir } from '../../service/flows/keys.js';
import { createHivewatchService } from '../../service/service.js';
import { openStore } from '../../store/index.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * A run the app started from its flows folder records `user/<file>`; the CLI's
 * `resume` / `retry` with that app's database find the file in the app's folder, wherever the
 * command is run from, and never an unrelated `user/<file>` under the current directory.
 */

const FAILING = `agent worker:
  runtime: "fake"
session: worker
  prompt: "app flow step one"
session: worker
  prompt: "app flow step two"
  simulate: "crash"
`;

const DECOY = `agent worker:
  runtime: "fake"
session: worker
  prompt: "DECOY from the current directory"
`;

interface Captured {
  code: number;
  out: string;
  err: string;
}

async function cli(args: string[]): Promise<Captured> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), stdout: new PassThrough(), env: {} };
  const code = await main(args, io);
  return { code, out, err };
}

let dir = '';
let cwd = '';

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-keys-'));
  cwd = process.cwd();
  // The current directory holds an unrelated `user/x.prose`: it must never be picked.
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(join(elsewhere, 'user'), { recursive: true });
  writeFileSync(join(elsewhere, 'user', 'x.prose'), DECOY);
  process.chdir(elsewhere);
});

afterEach(async () => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

async function appRun(db: string): Promise<string> {
  const store = await openStore({ path: db });
  const service = await createHivewatchService({ store, examplesDir: bundledExamplesDir(), userFlowsDir: appFlowsDirOf(db), clock: 'virtual' });
  try {
    const { runId } = await service.startRun({ flow: 'user/x.prose' });
    await service.whenFinished(runId);
    return runId;
  } finally {
    await service.close();
    await store.close();
  }
}

async function runsOf(db: string): Promise<{ id: string; flow: string; status: string }[]> {
  const store = await openStore({ path: db, readonly: true });
  try {
    return (await store.listRuns({ limit: 50 })).runs.map((r) => ({ id: r.id, flow: r.flow, status: r.status }));
  } finally {
    await store.close();
  }
}

describe('flow keys shared by the app and the CLI', () => {
  it('resume and retry of an app run find user/x.prose in the app flows folder, not in the current directory', async () => {
    const app = join(dir, 'app');
    mkdirSync(join(app, 'flows'), { recursive: true });
    writeFileSync(join(app, 'flows', 'x.prose'), FAILING);
    const db = join(app, 'hivewatch.db');
    const runId = await appRun(db);
    expect(await runsOf(db)).toEqual([{ id: runId, flow: 'user/x.prose', status: 'failed' }]);

    const resumed = await cli(['resume', runId, '--db', db, '--json', '--virtual-clock']);
    expect(resumed.err).not.toContain('cannot find');
    expect(resumed.out).toContain('"resumedFrom":"' + runId + '"');
    expect(resumed.out).not.toContain('DECOY');
    expect(resumed.code).toBe(1); // step two crashes again: the app's file ran, not the decoy

    const retried = await cli(['retry', runId, '--db', db, '--json', '--virtual-clock']);
    expect(retried.out).toContain('app flow step one');
    expect(retried.out).not.toContain('DECOY');
    const flows = (await runsOf(db)).map((r) => r.flow);
    expect(flows).toEqual(['user/x.prose', 'user/x.prose', 'user/x.prose']);
  });

  it('a file run from the app flows folder on the command line records the same key as the app', async () => {
    const app = join(dir, 'app');
    mkdirSync(join(app, 'flows'), { recursive: true });
    writeFileSync(join(app, 'flows', 'x.prose'), FAILING);
    const db = join(app, 'hivewatch.db');
    const result = await cli(['run', join(app, 'flows', 'x.prose'), '--db', db, '--json', '--virtual-clock']);
    expect(result.code).toBe(1);
    expect((await runsOf(db)).map((r) => r.flow)).toEqual(['user/x.prose']);
  });

  it('when the app folder no longer holds the file, resume says so instead of running the current directory’s user/x.prose', async () => {
    const app = join(dir, 'app');
    mkdirSync(join(app, 'flows'), { recursive: true });
    writeFileSync(join(app, 'flows', 'x.prose'), FAILING);
    const db = join(app, 'hivewatch.db');
    const runId = await appRun(db);
    rmSync(join(app, 'flows', 'x.prose'));

    const resumed = await cli(['resume', runId, '--db', db, '--json', '--virtual-clock']);
    expect(resumed.code).toBe(1);
    expect(resumed.out).toBe('');
    expect(resumed.err).toBe(`hivewatch resume: cannot find the flow of run ${runId}: no flow user/x.prose\n`);
    expect(await runsOf(db)).toHaveLength(1);
  });
});
