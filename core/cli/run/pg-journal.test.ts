import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openPostgresStore } from '../../store/postgres/store.js';
import { postgresBinaries, postgresMissing } from '../../store/testing/test-databases.js';
import { cliHost, type CliHost } from '../../testing/cli-host.js';
import { startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * Refused writes with the real `hivewatch run` on a real PostgreSQL cluster: an agent whose
 * output holds a NUL byte made the run impossible to journal (after ~32 s: "invalid byte
 * sequence for encoding UTF8: 0x00", hinted "Check disk space"), the process exited leaving the
 * run `running`, and `resume` failed the same way. And a write the database refuses for another
 * reason must fail the run with a clear error at once, never leave it `running`, and let resume
 * continue it.
 */

if (!postgresBinaries) console.warn(`hivewatch run journal suite skipped: ${postgresMissing}`);

let cluster: PostgresCluster;
let count = 0;
const dirs: string[] = [];
const hosts: CliHost[] = [];

beforeAll(async () => {
  if (postgresBinaries) cluster = await startPostgresCluster(postgresBinaries);
}, 60_000);
afterEach(() => {
  for (const host of hosts.splice(0)) host.kill();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  if (postgresBinaries) cluster.stop();
});

async function onCluster(database: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url(database) });
  await client.connect();
  await client.query(sql);
  await client.end();
}

/** A database with Hivewatch's schema, and a flow whose one agent runs `script`. */
async function setUp(script: string): Promise<{ url: string; name: string; flow: string }> {
  const name = `cli_journal_${++count}`;
  await onCluster('postgres', `CREATE DATABASE ${name}`);
  const url = cluster.url(name);
  await (await openPostgresStore({ url, log: () => undefined })).close();
  const dir = mkdtempSync(join(tmpdir(), 'hw-cli-journal-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'agent.sh'), script);
  const flow = join(dir, 'flow.prose');
  writeFileSync(
    flow,
    `agent worker:\n  runtime: "command"\n  command: "/bin/sh ${join(dir, 'agent.sh')}"\n\nsession "speak"\n  agent: worker\nsession "then"\n  agent: worker\n`,
  );
  return { url, name, flow };
}

async function run(args: string[]): Promise<{ code: number; host: CliHost }> {
  const host = cliHost(args, {});
  hosts.push(host);
  return { code: await host.exited, host };
}

async function read<T>(url: string, read: (store: Awaited<ReturnType<typeof openPostgresStore>>) => Promise<T>): Promise<T> {
  const store = await openPostgresStore({ url, recover: false, log: () => undefined });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

describe.skipIf(!postgresBinaries)(skipTitle('hivewatch run journals what its agents print, on PostgreSQL', postgresMissing), () => {
  it('an agent that prints a NUL byte: the run completes and its output reads back, marked', async () => {
    const { url, flow } = await setUp(`printf 'fine\\000bytes'\n`);
    const { code, host } = await run(['run', flow, '--json', '--db', url]);
    expect(code, host.stderr()).toBe(0);
    const runId = host.printed[0]!.runId;
    const detail = await read(url, (store) => store.getRun(runId));
    expect(detail?.run.status).toBe('completed');
    expect(detail?.tasks.map((t) => t.output)).toEqual(['fine\uFFFDbytes', 'fine\uFFFDbytes']);
    const succeeded = host.printed.find((e) => e.type === 'taskSucceeded') as HivewatchEvent & { storageChanges?: unknown };
    expect(succeeded.storageChanges).toEqual([{ path: 'output', rule: 'text', original: 'fine\u0000bytes' }]);
  });

  it('a write the database refuses: the run fails at once with SYSTEM_EVENT_REJECTED, is not left running, and resume continues it', async () => {
    const { url, name, flow } = await setUp('echo "this is poison"\n');
    await onCluster(name, "ALTER TABLE tasks ADD CONSTRAINT no_poison CHECK (output IS NULL OR output NOT LIKE '%poison%')");
    const { code, host } = await run(['run', flow, '--db', url]);
    expect(code).toBe(1);
    const said = `${host.stdout()}${host.stderr()}`;
    expect(said).toMatch(
      /failed: SYSTEM_EVENT_REJECTED — the database refused event seq \d+ \(taskSucceeded\) of run \S+: .*violates check constraint "no_poison"/,
    );
    expect(said).not.toMatch(/disk space/);
    const runs = await read(url, (store) => store.listRuns());
    expect(runs.runs.map((r) => [r.status, r.lastErrorCode])).toEqual([['failed', 'SYSTEM_EVENT_REJECTED']]);

    await onCluster(name, 'ALTER TABLE tasks DROP CONSTRAINT no_poison');
    const resumed = await run(['resume', runs.runs[0]!.id, '--json', '--db', url]);
    expect(resumed.code, resumed.host.stderr()).toBe(0);
    expect(resumed.host.printed.at(-1)?.type).toBe('runCompleted');
  });
});
