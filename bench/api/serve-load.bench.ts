import { fullGc } from '../../core/testing/full-gc.js';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { REQUEST_TIMEOUT_MS } from '../../core/base/http-limits.js';
import { MAX_OTLP_CONNECTIONS } from '../../core/otel/receive/receiver.js';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../core/testing/postgres-cluster.js';
import { startServer, type RunningServer } from '../../server/main.js';
import { percentile, type Measurement } from '../harness/measure.js';
import { clientCommand } from '../harness/client-args.js';

/**
 * `serve` under load, on SQLite and on PostgreSQL. The server runs in this
 * process (so its memory is this process's), its clients in child processes as an operator's
 * script or an agent's exporter would be. Each engine, on a fresh database:
 *
 * 1. memory before any load (after a full GC);
 * 2. baseline: 500 `POST /api/flows/check` of the example flow (an API round trip that parses and
 *    checks the same flow, starting nothing), one at a time;
 * 3. the target: 500 `POST /api/runs` of examples/01-happy-path.prose (three fake-agent sessions,
 *    each a real subprocess), one at a time, timed from the first request to the last 201 — the
 *    runs execute meanwhile, as they would; target ≤ 10 s. Reported beside it, not judged: the
 *    event loop's delay meanwhile, the same 500 starts with 16 requests in flight, and 500 starts
 *    of a flow whose sessions run in-process (the `noop` runtime: the API and the journal without
 *    1,500 agent processes);
 * 4. memory: idle (before any load) → peak under that load (sampled every 100 ms) → once every
 *    run ended → 30 s later (no forced GC) → settled (a full GC, then RSS sampled each second
 *    until steady); target for the
 *    settled RSS: at most idle + SETTLED_RSS_MARGIN_MB;
 * 5. a burst of slow OTLP clients with the ingest token (a body byte every second): every one
 *    must be closed by the server within the request timeout (30 s, plus its 2.5 s check), and
 *    no more than MAX_OTLP_CONNECTIONS are held; memory at the peak and after.
 *
 * Nothing is primed: each engine's server starts cold, and the baseline runs before the target.
 */

const STARTS = 500;
/**
 * The quick form (what CI runs beside other work; docs/benches.md "Quick forms"): a fifth of the
 * starts, each still three fake-agent subprocesses, within QUICK_START_TARGET_MS: 50 ms a start,
 * 2.5 times the full target's pace (a start measured 4–5 ms at a load of 4), which a start that
 * waited on its agents or on the runs before it would miss. 300 slow OTLP clients, still past the
 * receiver's cap of 256, on SQLite only (the receiver's HTTP limits are the same code on both
 * engines); the unforced memory figure read 5 s after the runs end instead of 30; the
 * unjudged 16-in-flight figure left out. The memory and slow-client targets are the full run's.
 */
const QUICK_STARTS = 100;
const QUICK_START_TARGET_MS = 5_000;
const QUICK_SLOW_CONNECTIONS = 300;
const QUICK_LATER_S = 5;
const FLOW = 'examples/01-happy-path.prose';
/** The same three sessions, run in-process: what starting costs without agent processes. */
const NOOP_FLOW = 'user/three-noop-sessions.prose';
const NOOP_SOURCE =
  'agent inline:\n  runtime: "noop"\nsession: inline\n  prompt: "plan"\nsession: inline\n  prompt: "implement"\nsession: inline\n  prompt: "review"\n';
const START_TARGET_MS = 10_000;
/**
 * "Near its idle level", made a number: what `serve` may keep once the load
 * is over. V8 keeps some heap it grew into and the allocator some pages; a leak of the 500
 * runs' state (~50 KB each) would exceed it.
 */
const SETTLED_RSS_MARGIN_MB = 40;
const SETTLE_LIMIT_S = 15;
/** The unforced figure: RSS this long after every run ended, as V8's own memory reducer left it. */
const LATER_S = 30;

/** How much load one engine's figures put on serve: the full run's or the quick form's. */
interface Size {
  quick: boolean;
  starts: number;
  laterS: number;
}
const sizeOf = (quick: boolean): Size => ({ quick, starts: quick ? QUICK_STARTS : STARTS, laterS: quick ? QUICK_LATER_S : LATER_S });
const HERE = dirname(fileURLToPath(import.meta.url));

interface Memory {
  rssMb: number;
  heapMb: number;
}

const mb = (bytes: number): number => bytes / (1024 * 1024);
const memory = (): Memory => {
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapMb: mb(m.heapUsed) };
};

/** Samples memory every 100 ms until stopped; the peak of each figure. */
function peakMemory(): { stop(): Memory } {
  let peak = memory();
  const timer = setInterval(() => {
    const now = memory();
    peak = { rssMb: Math.max(peak.rssMb, now.rssMb), heapMb: Math.max(peak.heapMb, now.heapMb) };
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

function child(script: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, clientCommand(join(HERE, script), args), { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${script} exited with ${code}: ${out}`))));
  });
}

interface Posted {
  elapsedMs: number;
  latencies: number[];
  unexpected: string[];
}

async function postMany(server: RunningServer, path: string, body: object, expected: number, starts: number, inFlight = 1): Promise<Posted> {
  const out = await child('start-runs-client.js', [
    server.origin,
    server.token,
    path,
    JSON.stringify(body),
    String(starts),
    String(inFlight),
    String(expected),
  ]);
  const posted = JSON.parse(out) as Posted;
  if (posted.unexpected.length > 0) throw new Error(`${path}: unexpected answers: ${posted.unexpected.join('; ')}`);
  return posted;
}

async function untilRunsEnd(server: RunningServer): Promise<number> {
  const start = performance.now();
  for (;;) {
    const counts = await server.service.countRuns({});
    const active = (counts.byStatus.queued ?? 0) + (counts.byStatus.running ?? 0) + (counts.byStatus.cancelling ?? 0);
    if (active === 0) return performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const fmt = (m: Memory): string => `RSS ${m.rssMb.toFixed(0)} MB, heap ${m.heapMb.toFixed(0)} MB`;

const latency = (p: Posted): string => `each start p50 ${percentile(p.latencies, 50).toFixed(1)} ms, p95 ${percentile(p.latencies, 95).toFixed(1)} ms`;

/**
 * Memory once the load is over: after a full GC, sampled each second until two samples in a row
 * are within 1 MB (the allocator has handed back what it will), at most SETTLE_LIMIT_S samples.
 */
async function settledMemory(): Promise<Memory> {
  let last = memory();
  for (let i = 0; i < SETTLE_LIMIT_S; i += 1) {
    fullGc();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = memory();
    if (Math.abs(now.rssMb - last.rssMb) < 1) return now;
    last = now;
  }
  return last;
}

/** Starts and memory: the target figure and what explains it. */
async function startFigures(engine: string, server: RunningServer, size: Size): Promise<Measurement[]> {
  const { starts: n, laterS } = size;
  const startTarget = size.quick ? QUICK_START_TARGET_MS : START_TARGET_MS;
  fullGc();
  const idle = memory();
  const source = (await server.service.listFlows()).find((f) => f.id === FLOW)?.source ?? '';
  const check = await postMany(server, '/api/flows/check', { source, file: FLOW }, 200, n);

  const peak = peakMemory();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const loadBefore = loadavg()[0] ?? 0;
  const starts = await postMany(server, '/api/runs', { flow: FLOW }, 201, n);
  const cpu = process.cpuUsage(cpuBefore);
  loop.disable();
  const endedMs = await untilRunsEnd(server);
  const underLoad = peak.stop();
  const ended = memory();
  // What an operator's `ps` shows half a minute after the load, before any forced collection.
  await new Promise((resolve) => setTimeout(resolve, laterS * 1_000));
  const later = memory();
  const settled = await settledMemory();

  const parallel = size.quick ? null : await postMany(server, '/api/runs', { flow: FLOW }, 201, n, 16);
  await untilRunsEnd(server);
  const inProcess = await postMany(server, '/api/runs', { flow: NOOP_FLOW }, 201, n);
  await untilRunsEnd(server);
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  return [
    {
      name: `${engine}: ${n} × POST /api/runs (${FLOW}), one at a time`,
      value: starts.elapsedMs,
      unit: 'ms',
      baseline: check.elapsedMs,
      ratio: starts.elapsedMs / check.elapsedMs,
      target: size.quick ? `≤ ${startTarget} ms (--quick; ${STARTS} starts ≤ ${START_TARGET_MS} ms in the full run)` : `≤ ${startTarget} ms`,
      pass: starts.elapsedMs <= startTarget,
      note:
        `${latency(starts)}; serve's CPU meanwhile ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (${((cpu.user + cpu.system) / 1e3 / n).toFixed(1)} ms a start, its runs' work included); ` +
        `load average ${loadBefore.toFixed(1)} on ${availableParallelism()} cores as it began; event loop delay meanwhile p50 ${ms(loop.percentile(50))} ms, p99 ${ms(loop.percentile(99))} ms; ` +
        `baseline ${n} × POST /api/flows/check of the same flow ${check.elapsedMs.toFixed(0)} ms; the ${n} runs (${n * 3} fake-agent subprocesses) all ended ${(endedMs / 1000).toFixed(1)} s after the last start`,
    },
    ...(parallel
      ? [{ name: `${engine}: the same ${n} starts, 16 requests in flight (not judged)`, value: parallel.elapsedMs, unit: 'ms', note: latency(parallel) }]
      : []),
    {
      name: `${engine}: ${n} starts of in-process (noop) sessions, one at a time (not judged)`,
      value: inProcess.elapsedMs,
      unit: 'ms',
      note: `${latency(inProcess)}: the API and the journal without agent processes`,
    },
    {
      name: `${engine}: serve RSS after the ${n} starts, settled`,
      value: settled.rssMb,
      unit: 'MB RSS',
      target: `≤ idle + ${SETTLED_RSS_MARGIN_MB} MB = ${(idle.rssMb + SETTLED_RSS_MARGIN_MB).toFixed(0)} MB`,
      pass: settled.rssMb <= idle.rssMb + SETTLED_RSS_MARGIN_MB,
      note:
        `RSS idle ${idle.rssMb.toFixed(0)} → peak ${underLoad.rssMb.toFixed(0)} → once every run ended ${ended.rssMb.toFixed(0)} → ${laterS} s later ${later.rssMb.toFixed(0)} → settled ${settled.rssMb.toFixed(0)} MB; ` +
        `idle ${fmt(idle)}; peak under load ${fmt(underLoad)}; once every run ended ${fmt(ended)}; ${laterS} s later, no forced GC, ${fmt(later)}; settled (full GC, RSS steady) ${fmt(settled)}`,
    },
  ];
}

/** A burst of slow OTLP clients with the token: every one closed within the limits, memory at its peak and after. */
async function slowOtlpFigures(engine: string, server: RunningServer, quick: boolean): Promise<Measurement> {
  const otel = server.otel;
  if (!otel) throw new Error('the OTLP receiver did not start');
  const connections = quick ? QUICK_SLOW_CONNECTIONS : 2_000;
  const peak = peakMemory();
  const giveUpMs = REQUEST_TIMEOUT_MS + 20_000;
  const slow = JSON.parse(await child('slow-otlp-client.js', ['127.0.0.1', String(otel.port), otel.token, String(connections), '1000', String(giveUpMs)])) as {
    answered408: number;
    refused: number;
    stillOpen: number;
    longestHeldMs: number;
    openedMs: number;
  };
  const during = peak.stop();
  fullGc();
  const after = memory();
  const heldBound = REQUEST_TIMEOUT_MS + 2_500 + slow.openedMs + 2_000;
  return {
    name: `${engine}: ${connections} slow OTLP clients with the token, longest held`,
    value: slow.longestHeldMs,
    unit: 'ms',
    target: `every one closed within the request timeout (≤ ${heldBound} ms incl. opening them), at most ${MAX_OTLP_CONNECTIONS} held`,
    pass: slow.stillOpen === 0 && slow.longestHeldMs <= heldBound && slow.answered408 <= MAX_OTLP_CONNECTIONS,
    note: `${slow.answered408} answered 408, ${slow.refused} refused past the cap (receiver counted ${otel.dropped}), ${slow.stillOpen} still open; memory peak ${fmt(during)}, after a full GC ${fmt(after)}`,
  };
}

async function engineLoad(engine: string, dbPath: string, quick: boolean): Promise<Measurement[]> {
  const slowClients = !quick || engine === 'SQLite';
  const dir = mkdtempSync(join(tmpdir(), 'hw-serve-load-'));
  const flows = join(dir, 'flows');
  mkdirSync(flows);
  writeFileSync(join(flows, NOOP_FLOW.slice('user/'.length)), NOOP_SOURCE);
  const server = await startServer({ dbPath, port: 0, otelPort: 0, staticDir: null, userFlowsDir: flows, log: () => undefined });
  try {
    const starts = await startFigures(engine, server, sizeOf(quick));
    return slowClients ? [...starts, await slowOtlpFigures(engine, server, quick)] : starts;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function serveLoadBenchmarks(options: { quick: boolean }): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hw-serve-load-db-'));
  try {
    out.push(...(await engineLoad('SQLite', join(dir, 'bench.db'), options.quick)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { binaries, reason } = findPostgres();
  if (!binaries) return [...out, { name: 'PostgreSQL: serve under load', value: 0, unit: '', note: `skipped: ${reason}` }];
  let cluster: PostgresCluster | null = null;
  try {
    cluster = await startPostgresCluster(binaries);
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE serve_load');
    await admin.end();
    out.push(...(await engineLoad('PostgreSQL', cluster.url('serve_load'), options.quick)));
  } finally {
    cluster?.stop();
  }
  return out;
}
