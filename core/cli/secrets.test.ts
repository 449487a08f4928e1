import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHivewatchService } from '../service/service.js';
import { bundledExamplesDir } from '../service/flows/keys.js';
import { ERROR_DIMENSIONS, SERIES_DIMENSIONS } from '../service/api.js';
import { openStore } from '../store/index.js';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../testing/postgres-cluster.js';
import { skipTitle } from '../testing/skip.js';

/**
 * A secret planted in a flow (an `env:` value printed on stderr and in an
 * output, a short secret-named variable, the flow text itself) and a password in HIVEWATCH_DB
 * appear in no table of the database, no API answer and no output of any command.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');
const TOKEN = 'tok-PLANTED-5e1f9';
/** Short, but secret-named: redacted whatever its length. `~` is in no id, token or base64url text. */
const SHORT = '~q~';
const SECRETS = [TOKEN, SHORT];

/** Every way a secret can reach a text: stdout, stderr, an output passed on, a caught error, a thrown message. */
export const LEAKY_FLOW = [
  'agent talker:',
  `  command: "sh -c 'echo said $API_TOKEN $DB_PASSWORD'"`,
  `  env: ["API_TOKEN=${TOKEN}", "DB_PASSWORD=${SHORT}", "MODE=timeout"]`,
  'agent leaky:',
  `  command: "sh -c 'echo out=$API_TOKEN; echo err=$API_TOKEN pw=$DB_PASSWORD >&2; exit 3'"`,
  `  env: ["API_TOKEN=${TOKEN}", "DB_PASSWORD=${SHORT}", "MODE=timeout"]`,
  'let said = session: talker',
  '  prompt: "speak"',
  'try:',
  '  session: leaky',
  '    prompt: "use {said}"',
  '    retry: 1',
  'catch err:',
  '  session: talker',
  '    prompt: "report {err.message}"',
  'throw "gave up after {said}"',
  '',
].join('\n');

interface Exit {
  code: number | null;
  out: string;
}

function hivewatch(args: string[], env: Record<string, string>, cwd: string): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, cwd });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** The secrets found in a text (none, when it is clean). */
export function leaks(text: string, secrets: readonly string[] = SECRETS): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

const asText = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));

/** Every row of every table (FTS shadow tables and blobs included), as text. */
function sqliteDump(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables
      .map(
        ({ name }) =>
          `${name}: ${asText(
            db
              .prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`)
              .raw()
              .all(),
          )}`,
      )
      .join('\n');
  } finally {
    db.close();
  }
}

/** Every answer of the read API for this history. */
async function apiDump(dbPath: string, userFlowsDir: string): Promise<string> {
  const store = await openStore({ path: dbPath });
  const service = await createHivewatchService({ store, examplesDir: bundledExamplesDir(), userFlowsDir });
  try {
    const answers: unknown[] = [];
    const runs = await service.listRuns({ limit: 100 });
    answers.push(runs, await service.countRuns({}), await service.listFlows());
    for (const run of runs.items) answers.push(await service.getRun({ runId: run.id }), await service.getEvents({ runId: run.id }));
    for (const by of ERROR_DIMENSIONS) answers.push(await service.errorCounts({ by }));
    for (const stackBy of SERIES_DIMENSIONS) answers.push(await service.errorSeries({ bucket: 'hour', stackBy }));
    const groups = await service.errorGroups({ trendBins: 4 });
    answers.push(groups, await service.listErrors({ limit: 100 }));
    for (const group of groups) answers.push(await service.listErrors({ fingerprint: group.fingerprint }));
    return asText(answers);
  } finally {
    await service.close();
    await store.close();
  }
}

describe('a planted secret on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hw-secrets-'));
  const db = join(dir, 'hivewatch.db');
  const flows = join(dir, 'flows');
  const flow = join(flows, 'leak.prose');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is in no command output, no table and no API answer', async () => {
    mkdirSync(flows);
    writeFileSync(flow, LEAKY_FLOW);
    const env = { HIVEWATCH_DB: db };
    const outputs: Exit[] = [];
    const run = async (...args: string[]): Promise<Exit> => {
      const exit = await hivewatch(args, env, dir);
      outputs.push(exit);
      return exit;
    };
    expect((await run('check', flow)).code).toBe(0);
    const first = await run('run', flow, '--virtual-clock');
    expect(first.code).toBe(1);
    expect(first.out).toContain('[secret API_TOKEN]'); // the failures are shown, with the secret named, not given
    const json = await run('run', flow, '--json', '--virtual-clock');
    const runId = /"runId":"(run_[0-9a-f]+)"/.exec(json.out)?.[1] as string;
    for (const args of [
      ['runs'],
      ['runs', '--json'],
      ['errors'],
      ['errors', '--by', 'code', '--json'],
      ['errors', '--by', 'run', '--json'],
      ['errors', '--groups'],
      ['errors', '--groups', '--json'],
      ['replay', runId, '--json'],
    ]) {
      expect((await run(...args)).code, args.join(' ')).not.toBe(2);
    }
    await run('retry', runId, '--virtual-clock');
    for (const exit of outputs) expect(leaks(exit.out), exit.out).toEqual([]);

    const dump = sqliteDump(db);
    expect(dump).toContain('[secret API_TOKEN]'); // the journal kept the texts, without the values
    expect(dump).toContain('MODE=timeout'); // and the settings beside them as written
    expect(leaks(dump)).toEqual([]);
    expect(leaks(await apiDump(db, flows))).toEqual([]);
  });
});

const { binaries, reason } = findPostgres();

describe.skipIf(binaries === null)(skipTitle('a password in HIVEWATCH_DB (PostgreSQL)', reason), () => {
  const PASSWORD = 'pw-PLANTED-91c3';
  let cluster: PostgresCluster;
  const dir = mkdtempSync(join(tmpdir(), 'hw-secrets-pg-'));
  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
  });
  afterAll(() => {
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is printed by no command, names no folder, reaches no agent and is stored nowhere', async () => {
    // Trust authentication on loopback ignores the password: it is here to be leaked, or not.
    const url = cluster.url().replace(`${cluster.user}@`, `${cluster.user}:${PASSWORD}@`);
    const cwd = join(dir, 'cwd');
    mkdirSync(cwd);
    const env = { HIVEWATCH_DB: url, XDG_DATA_HOME: join(dir, 'data'), PGPASSWORD: PASSWORD };
    const flow = join(dir, 'env.prose');
    // An agent that prints its whole environment: what a child inherits is on the record.
    writeFileSync(flow, ['agent dump:', '  command: "env"', 'session: dump', '  prompt: "show"', ''].join('\n'));
    const outputs = [await hivewatch(['run', flow, '--virtual-clock'], env, cwd), await hivewatch(['run', flow, '--json', '--virtual-clock'], env, cwd)];
    expect(outputs[0]?.code, outputs[0]?.out).toBe(0);
    for (const args of [['runs'], ['runs', '--json'], ['errors', '--groups', '--json'], ['otel-env']]) outputs.push(await hivewatch(args, env, cwd));
    outputs.push(await serveBriefly(env, cwd));
    for (const exit of outputs) expect(leaks(exit.out, [PASSWORD]), exit.out).toEqual([]);
    expect(outputs.at(-1)?.out).toContain(`Your flows (0) in ${join(dir, 'data', 'hivewatch', 'flows')}`);
    expect(readdirSync(cwd)).toEqual([]);

    const client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    try {
      const tables = await client.query<{ name: string }>(
        "SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
      );
      expect(tables.rows.length).toBeGreaterThan(5);
      for (const { name } of tables.rows) {
        const rows = await client.query(`SELECT * FROM ${name}`);
        expect(leaks(asText(rows.rows), [PASSWORD]), name).toEqual([]);
      }
      const printed = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'attemptSucceeded'");
      expect(printed.rows[0]?.n).toBe(2);
    } finally {
      await client.end();
    }
  });

  it('given on the command line (--db), is blanked from the host command line before an agent can read it there (/proc/<pid>/cmdline)', async () => {
    const url = cluster.url().replace(`${cluster.user}@`, `${cluster.user}:${PASSWORD}@`);
    const seen = join(dir, 'seen.txt');
    const agent = join(dir, 'ancestors.sh');
    // What an agent can read of the processes above it: each one's command line, up to init,
    // written to a file (an agent's stdout is redacted on its way in; this is not).
    const walk = [
      'pid=$$',
      'while [ "$pid" -gt 1 ]; do',
      `  tr '\\000' ' ' < /proc/$pid/cmdline >> ${seen}; echo >> ${seen}`,
      "  pid=$(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f2)",
      'done',
    ];
    writeFileSync(agent, [...walk, `env >> ${seen}`, 'echo looked', ''].join('\n'));
    const flow = join(dir, 'ancestors.prose');
    writeFileSync(flow, ['agent walk:', `  command: "/bin/sh ${agent}"`, 'session: walk', '  prompt: "look"', ''].join('\n'));
    const cwd = join(dir, 'cwd-cmdline');
    mkdirSync(cwd);
    const run = await hivewatch(['run', flow, '--db', url, '--virtual-clock'], { XDG_DATA_HOME: join(dir, 'data-cmdline'), PGPASSWORD: PASSWORD }, cwd);
    expect(run.code, run.out).toBe(0);
    const text = readFileSync(seen, 'utf8');
    // The host's own line was read, with the URL in it, and its password blanked.
    expect(text).toContain(`run ${flow} --db ${url.replace(PASSWORD, '***')}`);
    expect(leaks(text, [PASSWORD])).toEqual([]);
    expect(leaks(run.out, [PASSWORD])).toEqual([]);
  });
});

/** `hivewatch serve` until its banner and flow list are printed, then Ctrl-C. */
function serveBriefly(env: Record<string, string>, cwd: string): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--otel-port', 'off'], { env: { ...process.env, ...env }, cwd });
    let out = '';
    const read = (d: Buffer): void => {
      out += d.toString();
      if (out.includes('Press Ctrl+C to stop.')) child.kill('SIGINT');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('close', (code) => resolve({ code, out }));
  });
}
