import { spawn } from 'node:child_process';
import { openSqliteStore } from '../core/store/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server/main.js';
import { percentile, type Measurement } from './measure.js';

/**
 * A flood of OTLP log records (10,000 per second for 30 s; `--quick`: 3 s) against the
 * receiver of a running `serve`, from another process. Checks that none is lost (every record is
 * an attempt in the store) and how `GET /api/runs` answers meanwhile: its p95 during the flood
 * against its p95 idle, measured in the same run.
 */

const RATE = 10_000;
const BATCH = 500;
const SESSIONS = 20;

async function probeRuns(origin: string, token: string, untilDone: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!untilDone()) {
    const start = process.hrtime.bigint();
    const res = await fetch(`${origin}/api/runs?limit=50`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((r) => setTimeout(r, 50));
  }
  return latencies;
}

export async function otelBenchmarks(options: { quick: boolean }): Promise<Measurement[]> {
  const seconds = options.quick ? 3 : 30;
  const dir = mkdtempSync(join(tmpdir(), 'hw-otel-bench-'));
  const server = await startServer({ dbPath: join(dir, 'bench.db'), port: 0, otelPort: 0, staticDir: null, examplesDir: join(dir, 'none'), log: () => undefined });
  try {
    const otel = server.otel;
    if (!otel) throw new Error('the OTLP receiver did not start');
    let idleDone = false;
    const idleProbe = probeRuns(server.origin, server.token, () => idleDone);
    await new Promise((r) => setTimeout(r, options.quick ? 1500 : 5000));
    idleDone = true;
    const idle = await idleProbe;

    const client = join(dirname(fileURLToPath(import.meta.url)), 'otel-flood-client.js');
    const child = spawn(process.execPath, [client, otel.endpoint, otel.token, String(RATE), String(seconds), String(BATCH), String(SESSIONS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let floodDone = false;
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const floodProbe = probeRuns(server.origin, server.token, () => floodDone);
    await exited;
    floodDone = true;
    const flood = await floodProbe;
    const sent = JSON.parse(output.trim()) as { payloads: number; records: number; refused: number; retries: number; elapsedMs: number };

    const counted = externalAttempts(server.dbPath);
    const idleP95 = percentile(idle, 95);
    const floodP95 = percentile(flood, 95);
    return [
      { name: 'otel: log records sent', value: sent.records, unit: 'records', note: `${sent.payloads} payloads of ${BATCH} over ${(sent.elapsedMs / 1000).toFixed(1)} s (${Math.round(sent.records / (sent.elapsedMs / 1000))} records/s), ${sent.retries} retried after a 429, ${sent.refused} refused in the end` },
      { name: 'otel: records lost (sent − attempts in the store)', value: sent.records - counted, unit: 'records', target: '0', pass: sent.records === counted && sent.refused === 0 },
      { name: 'otel: GET /api/runs p95 during the flood', value: floodP95, unit: 'ms', baseline: idleP95, ratio: floodP95 / idleP95, note: `idle p95 ${idleP95.toFixed(2)} ms (${idle.length} probes), flood ${flood.length} probes` },
    ];
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Attempts of external runs (one per API call), read from the SQLite file the server writes. */
function externalAttempts(dbPath: string): number {
  const store = openSqliteStore({ path: dbPath, readonly: true });
  try {
    return (store.database.prepare("SELECT COALESCE(SUM(attempt_count), 0) AS n FROM runs WHERE flow LIKE 'external:%'").get() as { n: number }).n;
  } finally {
    store.close();
  }
}
