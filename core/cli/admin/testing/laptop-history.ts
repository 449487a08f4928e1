import type { HivewatchEvent } from '../../../base/events.js';
import { decodeOtlp } from '../../../otel/receive/decode.js';
import { OtelIngester } from '../../../otel/receive/ingest.js';
import { fixture } from '../../../otel/testing.js';
import { MUTED_FLOWS_SETTING } from '../../../service/flows/notify-settings.js';
import { openSqliteStore, type HivewatchStore, type SqliteStore } from '../../../store/index.js';
import { sqliteContractStore } from '../../../store/sqlite/async-store.js';
import { JournalBuilder, randomJournals } from '../../../store/testing/journal-builder.js';

/**
 * The migrate tests' history (an operator's laptop: every kind of row a copy must carry) and
 * what they compare on both sides of a copy: every read the window and the CLI make, and the
 * journal in commit order with its walls.
 */

export const NOW = Date.UTC(2026, 0, 10, 9, 0, 0);
const HOUR = 3_600_000;

/** Appends the journals a few events at a time, round-robin, so runs overlap in commit order. */
function interleave(store: SqliteStore, journals: readonly HivewatchEvent[][], chunk: number): void {
  const at = journals.map(() => 0);
  for (let left = true; left; ) {
    left = false;
    journals.forEach((events, i) => {
      const from = at[i]!;
      if (from >= events.length) return;
      store.appendEvents(events.slice(from, from + chunk));
      at[i] = from + chunk;
      left = true;
    });
  }
}

/**
 * A history as an operator's laptop has one: random runs of three flows overlapping in commit
 * order, a virtual-clock run journaled over two batches at different wall times, a failed run
 * resumed and its resumption retried, an agent session seen through telemetry (ended by the
 * quiet period), and settings.
 */
export async function buildHistory(path: string): Promise<void> {
  let clock = NOW;
  const sqlite = openSqliteStore({ path, now: () => clock });
  interleave(sqlite, randomJournals(7, 14, { start: NOW - 48 * HOUR, spanMs: 24 * HOUR }), 5);

  const virtual = new JournalBuilder('virtual-1', { clock: 'virtual', start: NOW + 24 * HOUR, flow: 'flows/v.prose', flowName: 'v' })
    .start()
    .runStep([{ name: 'flaky', attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'slow' }, 'ok'], delayMs: 300_000 }])
    .complete().events;
  sqlite.appendEvents(virtual.slice(0, 4));
  clock = NOW + 1_234;
  sqlite.appendEvents(virtual.slice(4));

  const first = new JournalBuilder('chain-1', { flow: 'flows/chain.prose', flowName: 'chain', start: NOW - HOUR })
    .start()
    .runStep([{ attempts: ['ok'] }])
    .runStep([{ attempts: [{ code: 'GIT_MERGE_CONFLICT', origin: 'git', message: 'merge conflict in a.ts' }] }])
    .fail().events;
  const resumed = new JournalBuilder('chain-2', { flow: 'flows/chain.prose', flowName: 'chain', start: NOW - HOUR / 2, resumedFrom: 'chain-1', resumeStep: 1 })
    .start()
    .runStep([{ attempts: [{ code: 'GIT_MERGE_CONFLICT', origin: 'git', message: 'merge conflict in b.ts' }] }])
    .fail().events;
  const retried = new JournalBuilder('chain-3', { flow: 'flows/chain.prose', flowName: 'chain', start: NOW - HOUR / 4, retryOf: 'chain-2' })
    .start()
    .runStep([{ attempts: ['ok'] }])
    .complete().events;
  for (const events of [first, resumed, retried]) sqlite.appendEvents(events);

  const store = sqliteContractStore(sqlite);
  const ingester = new OtelIngester(store, { now: () => clock });
  await ingester.ingest(decodeOtlp('logs', 'json', fixture('claude-code-logs', 'json')), 'digest-1');
  clock = NOW + 2 * HOUR;
  await ingester.sweep();
  // A second agent session, still open (running) when the laptop's history is moved.
  await ingester.ingest(decodeOtlp('logs', 'json', fixture('codex-cli-logs', 'json')), 'digest-2');
  sqlite.setSetting(MUTED_FLOWS_SETTING, JSON.stringify(['flows/a.prose']));
  sqlite.setSetting('http.token', 'laptop-token');
  // Issues (docs/triage.md): every group announced, and one resolved by the operator.
  const groups = sqlite.errorGroups({ limit: 1000 });
  for (const g of groups)
    await store.issues.journal({
      fingerprint: g.fingerprint,
      kind: 'new',
      from: null,
      to: 'unresolved',
      actor: 'system',
      host: 'laptop',
      at: g.firstSeen,
      reason: null,
      ignore: null,
      cause: null,
      dedupeKey: `${g.fingerprint}:new`,
    });
  await store.issues.journal({
    fingerprint: groups[0]!.fingerprint,
    kind: 'resolved',
    from: 'unresolved',
    to: 'resolved',
    actor: 'cli',
    host: 'laptop',
    at: NOW,
    reason: 'fixed',
    ignore: null,
    cause: null,
    dedupeKey: 'resolve-1',
  });
  sqlite.close();
}

/** Everything the window and the CLI read, through the contract: equal on both sides. */
export async function readable(store: HivewatchStore): Promise<unknown> {
  const { runs } = await store.listRuns({ limit: 500 });
  const perRun = [];
  for (const run of runs) {
    perRun.push({
      detail: await store.getRun(run.id),
      events: await store.getEvents(run.id),
      lineage: await store.runLineage(run.id),
      attemptTelemetry: await store.attemptTelemetry(run.id),
    });
  }
  const window = { since: NOW - 30 * 24 * HOUR, until: NOW + 30 * 24 * HOUR };
  const counts: Record<string, unknown> = {};
  for (const by of ['category', 'origin', 'code', 'flow', 'handled', 'run', 'task'] as const) counts[by] = await store.errorCounts({ by, ...window });
  return {
    runs,
    count: await store.countRuns(),
    perRun,
    counts,
    series: await store.errorSeries({ bucket: 'hour', stackBy: 'code', ...window }),
    groups: await store.errorGroups(),
    errors: await store.listErrors({ limit: 500 }),
  };
}

/** The whole journal in commit order, with walls (commit positions are each database's own). */
export async function journal(store: HivewatchStore): Promise<{ event: HivewatchEvent; wall: number }[]> {
  return (await store.eventsAfterCommit(0, 100_000)).map(({ event, wall }) => ({ event, wall }));
}
