import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * `hivewatch issues`: the list, resolve / ignore / reopen journaled as
 * `cli`, the runs an issue hit, and bad input with its exact message and exit code. In-process
 * through `main` on a real SQLite file, and once through the real binary for the exit code.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');
const RATE_LIMITED = { code: 'RUNTIME_RATE_LIMIT' as const, message: 'runtime fake was rate limited: 429 Too Many Requests', origin: 'runtime:fake' };
const TIMEOUT = { code: 'RUNTIME_TIMEOUT' as const, message: 'runtime fake timed out after 30s', origin: 'runtime:fake' };
const TITLE = 'RUNTIME_RATE_LIMIT · runtime fake was rate limited: <n> Too Many Requests';

let dir: string;
let db: string;
let rateLimit: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: process.stdout, env: {} };
  const code = await main([...args, '--db', db], io);
  return { code, out, err };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-issues-'));
  db = join(dir, 'history.db');
  const store = openSqliteStore({ path: db });
  const now = Date.now();
  store.appendEvents(
    new JournalBuilder('run-limited', { start: now - 600_000, flowName: 'api' })
      .start()
      .runStep([{ attempts: [RATE_LIMITED] }])
      .fail().events,
  );
  store.appendEvents(
    new JournalBuilder('run-retried', { start: now - 300_000, flowName: 'api' })
      .start()
      .runStep([{ attempts: [RATE_LIMITED, 'ok'] }])
      .complete().events,
  );
  store.appendEvents(
    new JournalBuilder('run-slow', { start: now - 200_000, flowName: 'batch' })
      .start()
      .runStep([{ attempts: [TIMEOUT] }])
      .fail().events,
  );
  rateLimit = store.errorGroups().find((g) => g.code === 'RUNTIME_RATE_LIMIT')!.fingerprint;
  store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hivewatch issues', () => {
  it('lists issues with titles, statuses and counts, sorted and filtered', async () => {
    const list = await cli(['issues', '--sort', 'runs', '--json']);
    expect(list.code, list.err).toBe(0);
    const { issues } = JSON.parse(list.out) as {
      issues: { id: string; title: string; status: string; substatus: string; runs: number; failures: number; occurrences: number }[];
    };
    expect(issues.map((i) => [i.title, i.status, i.substatus, i.runs, i.failures, i.occurrences])).toEqual([
      [TITLE, 'unresolved', 'new', 2, 1, 2],
      ['RUNTIME_TIMEOUT · runtime fake timed out after <n>s', 'unresolved', 'new', 1, 1, 1],
    ]);
    const table = await cli(['issues']);
    expect(table.out.split('\n')[0]).toMatch(/^ISSUE\s+STATUS\s+EVENTS\s+FAILURES\s+RUNS\s+LAST SEEN\s+TITLE$/);
    expect(table.out).toContain(`${rateLimit}  unresolved (new)  2       1         2     `);
    expect((await cli(['issues', '--status', 'resolved'])).out).toBe('no resolved issues\n');
  });

  it('resolve, ignore and reopen say what they did, by a unique prefix; the runs an issue hit', async () => {
    const prefix = rateLimit.slice(0, 7);
    expect(await cli(['issues', 'resolve', prefix])).toEqual({ code: 0, out: `resolved ${rateLimit} · ${TITLE}\n`, err: '' });
    expect(await cli(['issues', 'resolve', rateLimit])).toEqual({ code: 0, out: `${rateLimit} is already resolved · ${TITLE}\n`, err: '' });
    const resolved = JSON.parse((await cli(['issues', '--status', 'resolved', '--json'])).out) as { issues: { id: string; changedBy: string }[] };
    expect(resolved.issues.map((i) => [i.id, i.changedBy])).toEqual([[rateLimit, 'cli']]);
    // The list says when each ignore ends.
    const statusOf = async (): Promise<string | undefined> =>
      /^\S+\s+(.+?)\s{2,}\d/.exec((await cli(['issues', '--status', 'ignored'])).out.split('\n')[1] ?? '')?.[1];
    const before = Date.now();
    expect((await cli(['issues', 'ignore', rateLimit, '--for', '24h'])).out).toBe(`ignored ${rateLimit} for 24h · ${TITLE}\n`);
    const until = /^ignored \(until (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC\)$/.exec((await statusOf()) ?? '')?.[1];
    expect(Date.parse(`${until}Z`)).toBeGreaterThanOrEqual(Math.floor((before + 86_400_000) / 1000) * 1000);
    expect(Date.parse(`${until}Z`)).toBeLessThanOrEqual(Date.now() + 86_400_000);
    expect((await cli(['issues', 'ignore', rateLimit, '--until-count', '5'])).out).toBe(`ignored ${rateLimit} until 5 more occurrences · ${TITLE}\n`);
    expect(await statusOf()).toBe('ignored (until 5 more occurrences)');
    expect((await cli(['issues', 'ignore', rateLimit, '--until-escalating'])).out).toBe(`ignored ${rateLimit} until it escalates · ${TITLE}\n`);
    expect(await statusOf()).toBe('ignored (until it escalates)');
    expect((await cli(['issues', 'reopen', rateLimit])).out).toBe(`reopened ${rateLimit} · ${TITLE}\n`);
    const runs = await cli(['issues', 'runs', prefix]);
    expect(runs.out.split('\n').slice(0, 2)).toEqual([
      `2 runs hit ${rateLimit} · ${TITLE}`,
      expect.stringMatching(/^RUN\s+STATUS\s+FLOW\s+STARTED\s+ENDING ERROR$/) as string,
    ]);
    const json = JSON.parse((await cli(['issues', 'runs', rateLimit, '--json'])).out) as { runs: { id: string }[] };
    expect(json.runs.map((r) => r.id)).toEqual(['run-retried', 'run-limited']);
  });

  it('refuses bad input with the usage exit code, and an unknown issue with exit 1', async () => {
    const cases: [string[], number, string][] = [
      [['issues', 'resolve', 'feedface'], 1, `hivewatch issues: no such issue "feedface" in ${db}\n`],
      [['issues', 'resolve'], 64, 'hivewatch issues: issues resolve needs an issue id (its fingerprint, or the start of it)\n'],
      [
        ['issues', 'archive', rateLimit],
        64,
        'hivewatch issues: unknown issues command "archive"; use show, resolve, ignore, reopen or runs (or none, to list them)\n',
      ],
      [
        ['issues', '--status', 'archived'],
        64,
        'hivewatch issues: --status must be one of unresolved, resolved, ignored, regressed, escalating, new, ongoing, got "archived"\n',
      ],
      [['issues', '--sort', 'count'], 64, 'hivewatch issues: --sort must be one of last-seen, first-seen, events, failures, runs, trend, got "count"\n'],
      [
        ['issues', 'ignore', rateLimit, '--for', 'ever'],
        64,
        'hivewatch issues: --for must be a duration of at least a minute like 30m, 24h or 7d, got "ever"\n',
      ],
      [
        ['issues', 'ignore', rateLimit, '--for', '1h', '--until-count', '3'],
        64,
        'hivewatch issues: give at most one of --for, --until-count and --until-escalating\n',
      ],
      [['issues', 'ignore', rateLimit, '--until-count', '0'], 64, 'hivewatch issues: --until-count must be a whole number from 1 to 1000000000, got 0\n'],
      [
        ['issues', 'ignore', rateLimit, '--until-count', '99999999999999999999'],
        64,
        'hivewatch issues: --until-count must be a whole number from 1 to 1000000000, got 99999999999999999999\n',
      ],
      [['issues', 'ignore', rateLimit, '--until-count', '1e3'], 64, 'hivewatch issues: --until-count must be a whole number from 1 to 1000000000, got 1e3\n'],
      [['issues', 'ignore', rateLimit, '--for', '9999999999999d'], 64, 'hivewatch issues: --for must be at most 365d (a year), got "9999999999999d"\n'],
      [['issues', 'ignore', rateLimit, '--for', '366d'], 64, 'hivewatch issues: --for must be at most 365d (a year), got "366d"\n'],
      [['issues', '--limit', '1001'], 64, 'hivewatch issues: --limit must be a whole number from 1 to 1000, got 1001\n'],
      [['issues', 'resolve', rateLimit, '--for', '1h'], 64, 'hivewatch issues: --for does not apply to issues resolve\n'],
      [['issues', '--until-escalating'], 64, 'hivewatch issues: --until-escalating does not apply to the list\n'],
      [['issues', 'resolve', 'ZZ'], 1, `hivewatch issues: no such issue "ZZ" in ${db}\n`],
    ];
    for (const [args, code, err] of cases) expect(await cli(args), args.join(' ')).toEqual({ code, out: '', err });
  });

  it('the real binary exits 1 for an unknown issue and journals nothing', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'issues', 'ignore', '0123abcd', '--db', db], { env: { ...process.env, HIVEWATCH_DB: '' } });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result).toEqual({ code: 1, stderr: `hivewatch issues: no such issue "0123abcd" in ${db}\n` });
    const store = openSqliteStore({ path: db, readonly: true });
    try {
      expect(store.database.prepare("SELECT COUNT(*) AS n FROM issue_log WHERE fingerprint LIKE '0123abcd%'").get()).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });
});
