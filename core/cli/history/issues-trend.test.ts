import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openSqliteStore } from '../../store/index.js';
import { JournalBuilder, type ErrorSpec } from '../../store/testing/journal-builder.js';
import type { IssueDetail } from '../../service/api-issue-page.js';
import type { Issue } from '../../service/api-issues.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * `hivewatch issues --since 24h --sort trend` and `hivewatch issues show ID` on a real SQLite
 * file: the issue that jumped (2 occurrences the day before, 20 in the last day) is listed first
 * with "+900 %", the steady one (5 and 5) after it with "±0 %"; `show` prints the page (why,
 * counts, trend with the hour so far marked, latest occurrence, activity, runs affected) and its
 * JSON. Occurrences are hours away from the period's edges, so `now` moving does not change them.
 */

const HOUR = 3_600_000;
const STEADY: ErrorSpec = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake timed out after 30s' };
const JUMPY: ErrorSpec = { code: 'GIT_MERGE_CONFLICT', origin: 'git', message: 'merge conflict in src/app.ts' };

let dir: string;
let db: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: process.stdout, env: {} };
  const code = await main([...args, '--db', db], io);
  return { code, out, err };
}

/** `n` runs from `at`, a minute apart, each failing on `error`. */
const failures = (prefix: string, at: number, n: number, error: ErrorSpec): HivewatchEvent[] =>
  Array.from(
    { length: n },
    (_, i) =>
      new JournalBuilder(`${prefix}-${i}`, { start: at + i * 60_000, flow: 'user/api.prose', flowName: 'api' })
        .start()
        .runStep([{ attempts: [error] }])
        .fail().events,
  ).flat();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-trend-'));
  db = join(dir, 'history.db');
  const store = openSqliteStore({ path: db });
  // Each batch starts on a clock hour, so its minutes stay in one hourly bucket (the forecast
  // reads the busiest hour) whatever minute the test runs at.
  const now = Math.floor(Date.now() / HOUR) * HOUR;
  store.appendEvents([
    ...failures('steady-before', now - 40 * HOUR, 5, STEADY),
    ...failures('steady-now', now - 10 * HOUR, 5, STEADY),
    ...failures('jumpy-before', now - 36 * HOUR, 2, JUMPY),
    ...failures('jumpy-now', now - 5 * HOUR, 20, JUMPY),
  ]);
  store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hivewatch issues over a period', () => {
  it('--since 24h --sort trend lists the issue that grew most first, with the period counts and the change', async () => {
    const json = await cli(['issues', '--since', '24h', '--sort', 'trend', '--json']);
    expect(json.code, json.err).toBe(0);
    const { issues } = JSON.parse(json.out) as { issues: Issue[] };
    expect(issues.map((i) => [i.code, i.period.events, i.period.failures, i.period.previous?.events, i.period.change])).toEqual([
      ['GIT_MERGE_CONFLICT', 20, 20, 2, 9],
      ['RUNTIME_TIMEOUT', 5, 5, 5, 0],
    ]);
    expect(issues[0]!.period.until - issues[0]!.period.since!).toBe(24 * HOUR);
    const text = await cli(['issues', '--since', '24h', '--sort', 'trend']);
    const lines = text.out.split('\n');
    expect(lines[0]).toBe('events and failures in the last 24h; change: events against the 24h before');
    expect(lines[1]).toMatch(/^ISSUE\s+STATUS\s+EVENTS\s+FAILURES\s+CHANGE\s+RUNS\s+LAST SEEN\s+TITLE$/);
    expect(lines[2]).toMatch(/^[0-9a-f]{16}\s+unresolved \(new\)\s+20\s+20\s+\+900 %\s+22\s+/);
    expect(lines[3]).toMatch(/^[0-9a-f]{16}\s+unresolved \(new\)\s+5\s+5\s+±0 %\s+10\s+/);
    // The last hour holds none of them: nothing is listed for it.
    expect((await cli(['issues', '--since', '1h'])).out).toBe('no issues in the last 1h\n');
  });

  it('show prints the issue page, and its JSON', async () => {
    const { issues } = JSON.parse((await cli(['issues', '--since', '24h', '--sort', 'trend', '--json'])).out) as { issues: Issue[] };
    const id = issues[0]!.id;
    const shown = await cli(['issues', 'show', id.slice(0, 8), '--since', '24h']);
    expect(shown.code, shown.err).toBe(0);
    const lines = shown.out.split('\n');
    expect(lines[0]).toBe('GIT_MERGE_CONFLICT · merge conflict in <path>');
    expect(lines).toContain(`id        ${id}`);
    expect(lines.find((l) => l.startsWith('status'))).toBe(
      'status    unresolved (new): new: first seen less than 72 hours ago and nobody has acted on it; 0 events in the last hour, forecast 200',
    );
    expect(lines).toContain('events    20 in the last 24h (+900 % against the 24h before: 2) · 22 all time');
    expect(lines.find((l) => l.startsWith('trend'))).toMatch(/^trend {5}per hour from .*\(\* this hour so far\): (\d+ ){24}0\*$/);
    expect(lines.find((l) => l.startsWith('latest'))).toMatch(/^latest {4}.* run jumpy-now-19 task 1:0 attempt 1: merge conflict in src\/app.ts$/);
    expect(lines).toContain('chain     GIT_MERGE_CONFLICT (attempt 1)');
    // Its runs reported no usage: the period's cost says so, never "$0.00".
    expect(lines.find((l) => l.startsWith('cost      in'))).toBe('cost      in the last 24h: no usage reported');
    expect(lines).toContain('origins   git');
    expect(lines.find((l) => l.startsWith('flow '))).toMatch(/^flow {6}first seen in the first run of user\/api.prose|^flow {6}could not compare/);
    expect(lines.some((l) => /^ {2}\S+ \S+ {2}first seen \(jumpy-before-0#6\)$/.test(l))).toBe(true);
    expect(lines.some((l) => / new by host:/.test(l))).toBe(true);
    expect(shown.out).toContain('runs affected (newest 10 of 22; all: hivewatch issues runs');
    expect(shown.out).toMatch(/RUN\s+STATUS\s+FLOW\s+STARTED\s+COST\njumpy-now-19\s+failed\s+api\s+/);

    const json = JSON.parse((await cli(['issues', 'show', id, '--since', '24h', '--json'])).out) as IssueDetail & {
      runs: { id: string }[];
      moreRuns: boolean;
      periodCost: { failed: { costUsd: number } };
    };
    expect(json.periodCost.failed.costUsd).toBe(0);
    expect(json.issue).toMatchObject({ id, period: { events: 20, previous: { events: 2 } } });
    expect(json.latest?.chain).toHaveLength(1);
    expect(json.runs).toHaveLength(10);
    expect(json.moreRuns).toBe(true);
    expect(json.activity.map((a) => a.kind)).toEqual(['first-seen', 'new']);
  });

  it('refuses a bad period and --since on a status change', async () => {
    expect(await cli(['issues', '--since', 'yesterday'])).toMatchObject({
      code: 64,
      err: expect.stringContaining('--since must be an age like 30m, 24h or 7d, got "yesterday"') as string,
    });
    expect(await cli(['issues', '--sort', 'hot'])).toMatchObject({
      code: 64,
      err: expect.stringContaining('--sort must be one of last-seen, first-seen, events, failures, runs, trend, got "hot"') as string,
    });
    expect(await cli(['issues', 'resolve', 'abc', '--since', '24h'])).toMatchObject({
      code: 64,
      err: expect.stringContaining('--since does not apply to issues resolve') as string,
    });
  });
});
