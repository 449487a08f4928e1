import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { waiting } from '../../testing/waiting.js';
import type { HivewatchEvent } from '../../base/events.js';
import { openPostgresStore } from '../../store/postgres/store.js';
import { postgresBinaries, postgresMissing } from '../../store/testing/test-databases.js';
import { cliHost, type CliHost } from '../../testing/cli-host.js';
import { outageFlow, type OutageFlow } from '../../testing/outage-flow.js';
import { startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * A database that goes away, with the real `hivewatch run` as the host: its PostgreSQL server stopped and
 * started again (an outage the journal's retries outlast, and one they do not), or restarted
 * immediately. Every host used to exit with code 13 within a second of the server going away,
 * leaving its run `running`. Now: no host exits early, every printed (= committed) event is in
 * the journal as printed, and no run is left `running` once the server is back. The outage's
 * length is set against HIVEWATCH_JOURNAL_RETRY_MS; `npm run faults -- --only pg` runs real 2, 10
 * and 30 s outages.
 */

if (!postgresBinaries) console.warn(`hivewatch run outage suite skipped: ${postgresMissing}`);

let cluster: PostgresCluster;
let count = 0;
const dirs: string[] = [];
const hosts: CliHost[] = [];

beforeAll(async () => {
  if (postgresBinaries) cluster = await startPostgresCluster(postgresBinaries, { durableCommits: true });
}, 60_000);
afterEach(() => {
  for (const host of hosts.splice(0)) host.kill();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  if (postgresBinaries) cluster.stop();
});

async function freshDatabase(): Promise<{ url: string; flow: OutageFlow }> {
  const name = `cli_outage_${++count}`;
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return { url: cluster.url(name), flow: anotherFlow() };
}

function anotherFlow(): OutageFlow {
  const dir = mkdtempSync(join(tmpdir(), 'hw-cli-outage-'));
  dirs.push(dir);
  return outageFlow(dir);
}

/**
 * `hivewatch run --json` of the outage flow, once session 1 is journaled and session 2's agent
 * works; `retryWindowMs` null leaves HIVEWATCH_JOURNAL_RETRY_MS unset (the product's default).
 */
async function runUntilSessionTwo(url: string, flow: OutageFlow, retryWindowMs: number | null): Promise<CliHost> {
  const window: Record<string, string> = retryWindowMs === null ? {} : { HIVEWATCH_JOURNAL_RETRY_MS: String(retryWindowMs) };
  const host = cliHost(['run', flow.file, '--json', '--db', url], { ...window, HIVEWATCH_JOURNAL_WAIT_MS: '120000' });
  hosts.push(host);
  flow.go(1);
  // vi.waitFor, not expect.poll: this helper may run in a hook.
  await vi.waitFor(() => host.printed.some((e) => e.type === 'attemptProcess' && e.step === 2) || waiting('session 2 at work'), { timeout: 60_000 });
  return host;
}

async function journalOf(url: string, runId: string): Promise<{ events: HivewatchEvent[]; status: string | undefined }> {
  const store = await openPostgresStore({ url, recover: false, log: () => undefined });
  try {
    return { events: await store.getEvents(runId), status: (await store.getRunRow(runId))?.status };
  } finally {
    await store.close();
  }
}

/** Every printed line is in the journal, at its seq, exactly as printed; the journal has no gap. */
function expectPrintedJournaled(printed: readonly HivewatchEvent[], journal: readonly HivewatchEvent[]): void {
  expect(journal.map((e) => e.seq)).toEqual(journal.map((_, i) => i + 1));
  for (const event of printed) expect(journal[event.seq - 1], `printed seq ${event.seq} (${event.type})`).toEqual(event);
}

describe.skipIf(!postgresBinaries)(skipTitle('hivewatch run while its PostgreSQL server goes away', postgresMissing), () => {
  it('rides out an outage its retries outlast: exits 0 with the run completed and every printed event journaled', async () => {
    const { url, flow } = await freshDatabase();
    const host = await runUntilSessionTwo(url, flow, 120_000);
    cluster.halt();
    flow.go(2);
    await expect.poll(() => flow.answered(2), { message: 'session 2 answered during the outage', timeout: 20_000 }).toBeTruthy();
    cluster.restart();
    flow.go(3);
    expect(await host.exited, host.stderr()).toBe(0);
    const runId = host.printed[0]!.runId;
    const { events, status } = await journalOf(url, runId);
    expect(status).toBe('completed');
    expectPrintedJournaled(host.printed, events);
    expect(host.printed).toHaveLength(events.length);
    expect(host.stderr().match(/is unavailable/g), host.stderr()).toHaveLength(1);
    expect(host.stderr().match(/ is back /g)).toHaveLength(1);
  });

  it('outlasting its retries: the run stops, the host waits for the server and journals the run failed, and resume completes it', async () => {
    const { url, flow } = await freshDatabase();
    const host = await runUntilSessionTwo(url, flow, 300);
    cluster.halt();
    flow.go(2);
    await expect
      .poll(() => /waiting up to \d+ s for the database to journal the last events of run /.test(host.stderr()), {
        message: 'the host waiting for the database',
        timeout: 60_000,
      })
      .toBeTruthy();
    cluster.restart();
    expect(await host.exited, host.stderr()).toBe(1);
    const runId = host.printed[0]!.runId;
    expect(host.stderr()).toContain(`the database is back: the last events of run ${runId} are journaled`);
    const { events, status } = await journalOf(url, runId);
    expect(status).toBe('failed');
    expectPrintedJournaled(host.printed, events);
    expect(events.at(-1)).toMatchObject({ type: 'runFailed', error: { code: 'SYSTEM_EVENT_WRITE_FAILED' } });

    flow.go(3);
    const resume = cliHost(['resume', runId, '--json', '--db', url], {});
    hosts.push(resume);
    expect(await resume.exited, resume.stderr()).toBe(0);
    expect(resume.printed.at(-1)?.type).toBe('runCompleted');
  });

  it('three hosts with the default retry window ride out a 60 s stop: every run completes, every printed event journaled', async () => {
    const { url, flow: first } = await freshDatabase();
    const flows = [first, anotherFlow(), anotherFlow()];
    const team = await Promise.all(flows.map((flow) => runUntilSessionTwo(url, flow, null)));
    cluster.halt();
    for (const flow of flows) flow.go(2);
    await expect.poll(() => flows.every((flow) => flow.answered(2)), { message: 'every session 2 answered during the outage', timeout: 20_000 }).toBeTruthy();
    await expect
      .poll(() => team.every((host) => / is unavailable /.test(host.stderr())), { message: 'every host saw the server go', timeout: 20_000 })
      .toBeTruthy();
    // The fault itself: the server stays down for a minute of real time (a restart or failover).
    await setTimeout(60_000);
    cluster.restart();
    for (const flow of flows) flow.go(3);
    for (const host of team) {
      expect(await host.exited, host.stderr()).toBe(0);
      const { events, status } = await journalOf(url, host.printed[0]!.runId);
      expect(status).toBe('completed');
      expectPrintedJournaled(host.printed, events);
      expect(host.printed).toHaveLength(events.length);
      const away = Number(/ is back \(unavailable for about (\d+) s\)/.exec(host.stderr())?.[1]);
      expect(away, host.stderr()).toBeGreaterThanOrEqual(60);
    }
  }, 180_000);

  it('survives pg_ctl restart -m immediate mid-run: exits 0, every printed event journaled', async () => {
    const { url, flow } = await freshDatabase();
    const host = await runUntilSessionTwo(url, flow, 120_000);
    cluster.restartImmediately();
    flow.go(2);
    flow.go(3);
    expect(await host.exited, host.stderr()).toBe(0);
    const { events, status } = await journalOf(url, host.printed[0]!.runId);
    expect(status).toBe('completed');
    expectPrintedJournaled(host.printed, events);
    expect(host.printed).toHaveLength(events.length);
  });
});
