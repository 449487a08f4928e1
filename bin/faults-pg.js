// PostgreSQL outage trials of `npm run faults` (`-- --only pg`). A throwaway cluster that commits
// synchronously; for each host kind (`hivewatch run --json`, and `hivewatch serve` with a run
// started through its API and its /api/stream followed) and each outage (the server stopped for
// 2, 10 and 30 s, and `pg_ctl restart -m immediate`, all within the default 2-minute retry window;
// and a 10 s stop past a window set to 3 s), while the run's second session works: the host must
// not exit before the server is back; every event it printed (run: the --json lines; serve: the
// stream) is in the journal as printed, with no gap; the run ends as the outage's `expect` says:
// `completed` within the window, `failed` with SYSTEM_EVENT_WRITE_FAILED past it (its last events
// landed once the server was back), never `running`; a failed run resumes to completion.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { check, httpJson, killQuietly, openStream } from './faults-support.js';

/** `retryMs`: the hosts' HIVEWATCH_JOURNAL_RETRY_MS (unset: the product's default, 2 minutes). */
const OUTAGES = [
  { name: 'stopped 2 s', stopMs: 2_000, expect: 'completed' },
  { name: 'stopped 10 s', stopMs: 10_000, expect: 'completed' },
  { name: 'stopped 30 s', stopMs: 30_000, expect: 'completed' },
  { name: 'restart -m immediate', stopMs: null, expect: 'completed' },
  { name: 'stopped 10 s, past a 3 s window', stopMs: 10_000, retryMs: 3_000, expect: 'failed' },
];
const TRIAL_LIMIT_MS = 150_000;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, probe, withinMs = 60_000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(20);
  }
}

/** Spawns a host; `lines` gets stdout's lines; `exit` resolves with its code (or signal). */
function spawnHost(bin, args, env) {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const host = { child, lines: [], stderr: '', exitCode: undefined };
  child.stderr.on('data', (chunk) => (host.stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => host.lines.push(line));
  host.exit = new Promise((resolve) => child.on('close', (code, signal) => resolve((host.exitCode = code ?? signal))));
  return host;
}

async function startServeRun(host) {
  const api = await until(
    'the serve banner',
    () => host.lines.map((l) => /Bearer ([^"]+)" (http:\/\/127\.0\.0\.1:\d+)\/api\/runs/.exec(l)).find(Boolean),
    30_000,
  );
  const [, token, origin] = api;
  const printed = [];
  const stream = openStream(origin, token, printed);
  const { runId } = await httpJson(origin, token, 'POST', '/api/runs', { flow: 'user/outage.prose' });
  return { runId, printed, stream };
}

async function trial(context, kind, outage, index) {
  const { bin, cluster, openPostgresStore, outageFlow } = context;
  const name = `faults_pg_${kind}_${index}`;
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = cluster.url(name);
  const xdg = mkdtempSync(join(tmpdir(), `hw-faults-pg-${kind}-`));
  // A team database keeps a machine's flows beside its default database: $XDG_DATA_HOME/hivewatch/flows.
  const flow = outageFlow(join(xdg, 'hivewatch'));
  const env = { ...process.env, XDG_DATA_HOME: xdg };
  delete env.HIVEWATCH_DB;
  delete env.HIVEWATCH_JOURNAL_RETRY_MS;
  if (outage.retryMs !== undefined) env.HIVEWATCH_JOURNAL_RETRY_MS = String(outage.retryMs);
  // The trial's own reader: quiet (the hosts' logs are what the trial is about).
  const reader = await openPostgresStore({ url, recover: false, log: () => undefined });
  let host = null;
  let stream = null;
  try {
    host =
      kind === 'run'
        ? spawnHost(bin, ['run', flow.file, '--json', '--db', url], env)
        : spawnHost(bin, ['serve', '--port', '0', '--otel-port', 'off', '--db', url], env);
    let runId;
    let printed;
    if (kind === 'run') runId = JSON.parse(await until('the first --json line', () => host.lines[0])).runId;
    else ({ runId, printed, stream } = await startServeRun(host));
    flow.go(1);
    await until('session 2 at work', async () => (await reader.getEvents(runId)).some((e) => e.type === 'attemptProcess' && e.step === 2));
    if (outage.stopMs === null) cluster.restartImmediately();
    else {
      cluster.halt();
      flow.go(2);
      await pause(outage.stopMs);
    }
    check(host.exitCode === undefined, `the ${kind} host exited (${host.exitCode}) before the server was back: ${host.stderr.trim()}`);
    if (outage.stopMs !== null) cluster.restart();
    flow.go(2);
    flow.go(3);
    const status = await until(
      'the run ended in the journal',
      async () => {
        const row = await reader.getRunRow(runId).catch(() => null);
        return row && row.status !== 'running' ? row.status : null;
      },
      90_000,
    );
    if (kind === 'run') {
      const code = await host.exit;
      check(code === (status === 'completed' ? 0 : 1), `hivewatch run exited ${code} for a ${status} run: ${host.stderr.trim()}`);
      printed = host.lines.map((line) => JSON.parse(line));
    }
    const journal = await reader.getEvents(runId, 0, 100_000);
    check(
      journal.every((e, i) => e.seq === i + 1),
      'the journal has a gap',
    );
    for (const event of printed.filter((e) => e.runId === runId)) {
      check(JSON.stringify(journal[event.seq - 1]) === JSON.stringify(event), `printed event ${event.seq} (${event.type}) is not in the journal as printed`);
    }
    check(status === outage.expect, `the run ended ${status}, expected ${outage.expect}`);
    check(status === 'completed' || journal.at(-1)?.error?.code === 'SYSTEM_EVENT_WRITE_FAILED', `the run ended ${status} with ${journal.at(-1)?.error?.code}`);
    check((await reader.replayRun(runId)).ok, 'replay differs');
    if (status === 'failed') {
      if (kind === 'serve') killQuietly(host.child.pid, 'SIGTERM');
      await host.exit;
      const resumed = spawnSync(process.execPath, [bin, 'resume', runId, '--json', '--db', url], { env, encoding: 'utf8', timeout: 60_000 });
      check(resumed.status === 0, `hivewatch resume exited ${resumed.status ?? resumed.signal}: ${resumed.stderr.trim()}`);
    }
    return { status, printed: printed.length };
  } finally {
    stream?.destroy();
    if (host !== null && host.exitCode === undefined) {
      killQuietly(host.child.pid, 'SIGTERM');
      await Promise.race([host.exit, pause(10_000)]);
      killQuietly(host.child.pid);
    }
    await reader.close();
    rmSync(xdg, { recursive: true, force: true });
  }
}

/** Runs every PostgreSQL outage trial; returns a tally per host kind (null when no server is installed). */
export async function pgOutageTrials({ root, bin, kinds }) {
  const dist = (path) => import(join(root, 'dist-dev', ...path.split('/')));
  const { findPostgres, startPostgresCluster } = await dist('core/testing/postgres-cluster.js');
  const { binaries, reason } = findPostgres();
  if (!binaries) {
    console.log(`faults: PostgreSQL outages skipped: ${reason}`);
    return null;
  }
  const { openPostgresStore } = await dist('core/store/postgres/store.js');
  const { outageFlow } = await dist('core/testing/outage-flow.js');
  const cluster = await startPostgresCluster(binaries, { durableCommits: true });
  const figures = {};
  try {
    for (const kind of kinds) {
      const tally = { trials: 0, failures: 0, completed: 0, failed: 0 };
      figures[kind] = tally;
      for (const [index, outage] of OUTAGES.entries()) {
        tally.trials++;
        let watchdog;
        try {
          const limit = new Promise(
            (_, reject) => (watchdog = setTimeout(() => reject(new Error(`trial took longer than ${TRIAL_LIMIT_MS} ms`)), TRIAL_LIMIT_MS)),
          );
          const result = await Promise.race([trial({ bin, cluster, openPostgresStore, outageFlow }, kind, outage, index), limit]);
          tally[result.status]++;
          console.log(`pg ${kind}: ${outage.name}: ok (${result.printed} events printed, ${result.status})`);
        } catch (error) {
          tally.failures++;
          console.log(`pg ${kind}: ${outage.name}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
          // A failed trial may have left the server stopped.
          try {
            cluster.restart();
          } catch {
            // It was running.
          }
        } finally {
          clearTimeout(watchdog);
        }
      }
    }
  } finally {
    cluster.stop();
  }
  return figures;
}
