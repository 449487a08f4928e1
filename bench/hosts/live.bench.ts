import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { findPostgres, startPostgresCluster } from '../../core/testing/postgres-cluster.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledExamplesDir } from '../../core/service/flows/keys.js';
import { createHivewatchService, type HivewatchService } from '../../core/service/service.js';
import { openStore, type HivewatchStore } from '../../core/store/index.js';
import { percentile, type Measurement } from '../harness/measure.js';

/**
 * Commit-to-subscriber latency across hosts. Two CLI-like hosts (each its own store
 * connection and service, as `hivewatch run` is) and the app's service share one database; the
 * app's live subscriber stamps each event when it arrives, each host stamps it when its commit
 * returns. Other hosts' events reach the app through the journal tail (data_version probe);
 * the baseline is the app's own runs, published straight from its commits. Judged: the slowest other host's
 * event within 250 ms; and every committed event arrived once, in commit order.
 */

const FLOW = (steps: number): string => `agent worker:
  runtime: "fake"
repeat ${steps} as i:
  session: worker
    prompt: "step {i}"
    simulate: "slow:5ms"
`;

interface Host {
  store: HivewatchStore;
  service: HivewatchService;
}

/** On a PostgreSQL database: `location` is its URL, and the figures are named after it. */
export interface LiveBenchOptions {
  quick?: boolean;
  location?: string;
  label?: string;
}

export async function liveBenchmarks(options: LiveBenchOptions = {}): Promise<Measurement[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-bench-live-'));
  const flows = join(dir, 'flows');
  mkdirSync(flows);
  const steps = options.quick ? 20 : 80;
  writeFileSync(join(flows, 'steps.prose'), FLOW(steps));
  const path = options.location ?? join(dir, 'hivewatch.db');
  const label = options.label ?? '';
  const open = async (): Promise<Host> => {
    const store = await openStore({ path });
    return { store, service: await createHivewatchService({ store, examplesDir: bundledExamplesDir(), userFlowsDir: flows, clock: 'real' }) };
  };
  const app = await open();
  const hosts = [await open(), await open()];
  const committedAt = new Map<number, number>();
  const ownerOf = new Map<number, 'app' | 'host'>();
  for (const [i, host] of [app, ...hosts].entries()) {
    host.store.subscribe((_events, _walls, seqs) => {
      const now = performance.now();
      for (const seq of seqs) {
        committedAt.set(seq, now);
        ownerOf.set(seq, i === 0 ? 'app' : 'host');
      }
    });
  }
  const arrived: { id: number; at: number }[] = [];
  const start = await app.store.journalHead();
  const subscription = app.service.subscribeLive({
    onBatch: (batch) => {
      const now = performance.now();
      for (const e of batch) arrived.push({ id: e.id, at: now });
    },
  });
  try {
    const runs = await Promise.all([app, ...hosts, ...hosts].map((h) => h.service.startRun({ flow: 'user/steps.prose' }).then(({ runId }) => ({ h, runId }))));
    await Promise.all(runs.map(({ h, runId }) => h.service.whenFinished(runId)));
    const head = await app.store.journalHead();
    const deadline = Date.now() + 10_000;
    while ((arrived.at(-1)?.id ?? start) < head && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const ids = arrived.map((a) => a.id);
    const expected = Array.from({ length: head - start }, (_, i) => start + 1 + i);
    if (ids.length !== expected.length || ids.some((id, i) => id !== expected[i])) {
      throw new Error(`live bench: the subscriber saw ${ids.length} events, the journal has ${expected.length} (or out of order)`);
    }
    const latencies = (owner: 'app' | 'host'): number[] =>
      arrived.filter((a) => ownerOf.get(a.id) === owner).map((a) => a.at - (committedAt.get(a.id) as number));
    const own = latencies('app');
    const foreign = latencies('host');
    const ownP50 = percentile(own, 50);
    return [
      {
        name: `${label}commit → subscriber, other hosts (p50)`,
        value: percentile(foreign, 50),
        unit: 'ms',
        baseline: ownP50,
        ratio: percentile(foreign, 50) / ownP50,
        note: `${foreign.length} events of 2 CLI-like hosts; baseline: the app's own commits (p50 ${ownP50.toFixed(2)} ms, p95 ${percentile(own, 95).toFixed(2)} ms, ${own.length} events); ${options.location ? 'NOTIFY, and a' : ''} probe every 50 ms`,
      },
      {
        name: `${label}commit → subscriber, other hosts (p95)`,
        value: percentile(foreign, 95),
        unit: 'ms',
        baseline: percentile(own, 95),
        ratio: percentile(foreign, 95) / percentile(own, 95),
      },
      {
        name: `${label}commit → subscriber, other hosts (max)`,
        value: Math.max(...foreign),
        unit: 'ms',
        target: '≤ 250 ms',
        pass: Math.max(...foreign) <= 250,
      },
    ];
  } finally {
    subscription.unsubscribe();
    for (const h of [app, ...hosts]) await h.service.close();
    for (const h of [app, ...hosts]) await h.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same three hosts on a throwaway PostgreSQL cluster: other hosts' events arrive by NOTIFY. */
export async function livePostgresBenchmarks(options: { quick?: boolean } = {}): Promise<Measurement[]> {
  const { binaries, reason } = findPostgres();
  if (!binaries) {
    console.warn(`live bench on PostgreSQL skipped: ${reason}`);
    return [];
  }
  const cluster = await startPostgresCluster(binaries);
  try {
    return await liveBenchmarks({ ...options, location: cluster.url(), label: 'PostgreSQL: ' });
  } finally {
    cluster.stop();
  }
}
