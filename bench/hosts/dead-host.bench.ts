import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { EventOf, HivewatchEvent } from '../../core/base/events.js';
import { groupAlive } from '../../core/runtimes/process/process-group.js';
import { DEFAULT_HOST_WATCH_MS } from '../../core/service/runs/host-watch.js';
import { bundledExamplesDir } from '../../core/service/flows/keys.js';
import { createHivewatchService, type HivewatchService } from '../../core/service/service.js';
import { DEFAULT_LEASE_MS } from '../../core/store/hosts/host-lease.js';
import { openHostStore } from '../../core/service/history/open.js';
import type { HivewatchStore } from '../../core/store/index.js';
import { findPostgres, startPostgresCluster } from '../../core/testing/postgres-cluster.js';
import { percentile, type Measurement } from '../harness/measure.js';

/**
 * Dead hosts (rule 19): how long after `kill -9` of a real `hivewatch run` its run
 * reads `interrupted` through the API of a window's service (the one `serve` runs, watching the
 * database's hosts on its real one-second timer). What is timed: from just before the SIGKILL
 * to the first `getRun` that answers `interrupted` (polled every 10 ms). Nothing is primed: each
 * trial is a fresh CLI process, and the watcher is not nudged. Target: within 15 s of the death,
 * for a host on this machine (seen by its pid and start time) and for one elsewhere (seen by
 * its lease running out, simulated by registering the CLI's lease as another machine's before
 * the kill). A missed target fails `npm run bench`.
 */

const TARGET_MS = 15_000;
const POLL_MS = 10;

const FLOW = `agent api:
  command: "sh -c 'echo rate limited: 429 Too Many Requests >&2; exit 1'"
agent job:
  command: "sleep 300"

parallel:
  api = session: api
    prompt: "call the rate-limited API"
    retry: 2
    backoff: "fixed"
    delay: "10m"
  job = session: job
    prompt: "a long job"
`;

const BIN = join(dirname(dirname(dirname(dirname(fileURLToPath(import.meta.url))))), 'bin', 'hivewatch.js');

interface Trial {
  detectionMs: number;
  agentEnded: boolean;
}

/** Marks a host's lease as another machine's: only its lease can tell this watcher it died. */
async function registerElsewhere(location: string, pid: number): Promise<void> {
  if (location.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      await client.query("UPDATE hosts SET machine = 'another-machine' WHERE pid = $1", [pid]);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(location);
  try {
    db.prepare("UPDATE hosts SET machine = 'another-machine' WHERE pid = ?").run(pid);
  } finally {
    db.close();
  }
}

/** Whether the process group is gone by `deadline` (performance.now() time), polled every POLL_MS. */
async function groupEndsBy(pgid: number, deadline: number): Promise<boolean> {
  while (groupAlive(pgid)) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

async function trial(service: HivewatchService, flow: string, location: string, elsewhere: boolean): Promise<Trial> {
  const child = spawn(process.execPath, [BIN, 'run', flow, '--db', location, '--json'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const printed: HivewatchEvent[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => printed.push(JSON.parse(line) as HivewatchEvent));
  const exited = once(child, 'exit');
  let agent: number | null = null;
  try {
    const deadline = Date.now() + 60_000;
    while (agent === null || !printed.some((e) => e.type === 'retryScheduled')) {
      if (Date.now() > deadline) throw new Error('dead-host bench: the CLI run did not reach its backoff within 60 s');
      const started = printed.find((e): e is EventOf<'attemptProcess'> => e.type === 'attemptProcess' && e.taskId === '1:1');
      agent = started?.pid ?? null;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const runId = printed[0]!.runId;
    if (elsewhere) await registerElsewhere(location, child.pid!);
    const killedAt = performance.now();
    child.kill('SIGKILL');
    for (;;) {
      if ((await service.getRun({ runId }))?.run.status === 'interrupted') break;
      if (performance.now() - killedAt > 4 * TARGET_MS)
        throw new Error(`dead-host bench: run ${runId} still not interrupted ${4 * TARGET_MS} ms after kill -9`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const detectionMs = performance.now() - killedAt;
    await exited;
    // Elsewhere, the agent is not this watcher's to end (another machine's process); here it is.
    // The watcher sends SIGKILL before it journals the interruption, but a killed process leaves
    // the group only once the kernel has run its exit: judged within rule 19's bound from the kill,
    // not at the instant the run reads interrupted (CI saw "agent group ended in 2/3" that way).
    const agentEnded = await groupEndsBy(agent, killedAt + TARGET_MS);
    return { detectionMs, agentEnded };
  } finally {
    child.kill('SIGKILL');
    if (agent !== null && groupAlive(agent)) process.kill(-agent, 'SIGKILL');
  }
}

function measurements(label: string, trials: Trial[], what: string, checkAgents: boolean): Measurement[] {
  const times = trials.map((t) => t.detectionMs);
  const max = Math.max(...times);
  const agents = trials.filter((t) => t.agentEnded).length;
  return [
    { name: `${label}${what}: kill -9 → interrupted via the API (p50)`, value: percentile(times, 50), unit: 'ms' },
    {
      name: `${label}${what}: kill -9 → interrupted via the API (max)`,
      value: max,
      unit: 'ms',
      target: '≤ 15000 ms (rule 19)',
      pass: max <= TARGET_MS && (!checkAgents || agents === trials.length),
      note: `${trials.length} trials, each a fresh \`hivewatch run\` killed while one task waits 10 min in backoff and one agent works; watch every ${DEFAULT_HOST_WATCH_MS} ms, lease ${DEFAULT_LEASE_MS} ms${checkAgents ? `; agent group ended in ${agents}/${trials.length}` : ''}`,
    },
  ];
}

export interface DeadHostBenchOptions {
  quick?: boolean;
  location?: string;
  label?: string;
}

export async function deadHostBenchmarks(options: DeadHostBenchOptions = {}): Promise<Measurement[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-bench-dead-host-'));
  const flow = join(dir, 'backoff-and-work.prose');
  writeFileSync(flow, FLOW);
  const location = options.location ?? join(dir, 'hivewatch.db');
  let store: HivewatchStore | null = null;
  let service: HivewatchService | null = null;
  try {
    store = await openHostStore({ path: location });
    service = await createHivewatchService({ store, examplesDir: bundledExamplesDir(), watchHosts: true });
    const here: Trial[] = [];
    for (let i = 0; i < (options.quick ? 3 : 10); i++) here.push(await trial(service, flow, location, false));
    const elsewhere: Trial[] = [];
    for (let i = 0; i < (options.quick ? 1 : 3); i++) elsewhere.push(await trial(service, flow, location, true));
    const label = options.label ?? '';
    return [...measurements(label, here, 'dead host on this machine', true), ...measurements(label, elsewhere, 'dead host elsewhere (its lease)', false)];
  } finally {
    await service?.close({ timeoutMs: 5_000 });
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same on a throwaway PostgreSQL cluster (skipped with the reason when none is installed). */
export async function deadHostPostgresBenchmarks(options: { quick?: boolean } = {}): Promise<Measurement[]> {
  const { binaries, reason } = findPostgres();
  if (!binaries) {
    console.warn(`dead-host bench on PostgreSQL skipped: ${reason}`);
    return [];
  }
  const cluster = await startPostgresCluster(binaries);
  try {
    return await deadHostBenchmarks({ ...options, location: cluster.url(), label: 'PostgreSQL: ' });
  } finally {
    cluster.stop();
  }
}
