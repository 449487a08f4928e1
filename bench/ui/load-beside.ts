import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientCommand } from '../harness/client-args.js';
import { apiOf, type Serve } from './serve.js';

/**
 * What writes beside the window in the history bench's loaded figures (every screen's figures
 * again while an OTLP stream of 5,000 records/s and ten live runs write), started on each fresh
 * `serve` before its cold open and stopped after its warm one:
 *  - an agent exporter in its own process (otlp-stream-client.ts) sending Claude Code log records
 *    to the serve's receiver at RECORDS_PER_SECOND, in payloads of STREAM_BATCH;
 *  - LIVE_RUNS runs of LIVE_FLOW started through the API: 90 steps each, every step a fake-agent
 *    session whose first attempt times out and is retried after 100 ms, so each run journals
 *    attempts, errors and retries for ~20 s, beyond any sample; they are cancelled when it ends.
 * What the load did (records sent, accepted, late; runs started) is reported beside the figures.
 */

const RECORDS_PER_SECOND = 5_000;
const STREAM_BATCH = 250;
const STREAM_CONNECTIONS = 4;
const LIVE_RUNS = 10;
const LIVE_FLOW_FILE = 'bench-live-writer.prose';
const LIVE_FLOW = `agent writer:
  runtime: "fake"

repeat 90 as i:
  session "Write part {i}" (retry: 2, backoff: "fixed", delay: "100ms")
    agent: writer
    simulate: "timeout, ok"
`;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLIENT = join(dirname(fileURLToPath(import.meta.url)), 'otlp-stream-client.js');

export interface LoadReport {
  /** Records the stream sent and the receiver accepted, and ticks that found every connection busy. */
  records: number;
  accepted: number;
  late: number;
  elapsedMs: number;
  runsStarted: number;
}

export interface Load {
  stop(): Promise<LoadReport>;
}

/**
 * A copy of a cached history that a bench's serves may write into, and how to remove it: the
 * loaded samples write hundreds of thousands of records and runs, and any serve writes its port
 * and token, none of which the figures after it or the cached history (reused for 20 minutes) may
 * see. SQLite's backup, so what the history's WAL holds is copied too.
 */
export async function historyCopy(dbPath: string): Promise<{ path: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'hivewatch-history-loaded-'));
  const path = join(dir, 'history.db');
  const source = new Database(dbPath, { readonly: true });
  try {
    await source.backup(path);
  } finally {
    source.close();
  }
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The ingest token of the database at `dbPath`, as an operator gets it (`hivewatch otel-env`). */
export function ingestToken(dbPath: string): string {
  const text = execFileSync(process.execPath, [join(ROOT, 'bin', 'hivewatch.js'), 'otel-env', '--db', dbPath], { cwd: ROOT, encoding: 'utf8' });
  const token = /Authorization=Bearer (\S+?)"/.exec(text)?.[1];
  if (token === undefined) throw new Error(`hivewatch otel-env printed no token:\n${text}`);
  return token;
}

/** The flow the live runs run, written where `serve` over `dbPath` finds its operator's flows. */
export function writeLiveFlow(dbPath: string): string {
  const folder = join(dirname(resolve(dbPath)), 'flows');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, LIVE_FLOW_FILE), LIVE_FLOW);
  return `user/${LIVE_FLOW_FILE}`;
}

/** Starts the stream and the runs on `serve` (started with `--otel-port 0`); resolves once both write. */
export async function startLoad(serve: Serve, token: string, flow: string): Promise<Load> {
  if (serve.otelEndpoint === null) throw new Error('serve has no OTLP receiver: start it with --otel-port 0');
  const client = spawn(
    process.execPath,
    clientCommand(CLIENT, [serve.otelEndpoint, token, String(RECORDS_PER_SECOND), String(STREAM_BATCH), String(STREAM_CONNECTIONS)]),
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let printed = '';
  const streaming = new Promise<void>((ready, failed) => {
    client.stdout.on('data', (c: Buffer) => {
      printed += c.toString();
      if (printed.includes('streaming\n')) ready();
    });
    client.once('exit', (code) => failed(new Error(`the OTLP stream exited (${code}) before the receiver took a payload`)));
  });
  streaming.catch(() => undefined);
  const api = apiOf(serve.url);
  let runs: { runId: string }[];
  try {
    runs = await Promise.all(Array.from({ length: LIVE_RUNS }, () => api.post<{ runId: string }>('/api/runs', { flow })));
    await streaming;
  } catch (error) {
    client.kill('SIGTERM');
    throw error;
  }
  return {
    stop: async () => {
      await Promise.all(runs.map(({ runId }) => api.post(`/api/runs/${encodeURIComponent(runId)}/cancel`, {}).catch(() => undefined)));
      // 'close', not 'exit': a child's output may still be on its way when it has exited.
      const exited = new Promise<number | null>((done) => client.once('close', (code) => done(code)));
      client.kill('SIGTERM');
      // Awaited before `printed` is read: an argument list reads it before an await inside it.
      const exitCode = await exited;
      return { ...streamTotals(printed, exitCode), runsStarted: runs.length };
    },
  };
}

/**
 * The stream client's totals: the JSON line it prints when told to stop. A client that died
 * before that (or printed something else) fails the bench with what it printed, rather than
 * reporting a pace of NaN records a second.
 */
export function streamTotals(printed: string, exitCode: number | null): Omit<LoadReport, 'runsStarted'> {
  const last = printed.trim().split('\n').at(-1) ?? '';
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(last);
  } catch {
    // Not JSON: refused below with the rest.
  }
  const totals = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const fields = ['records', 'accepted', 'late', 'elapsedMs'] as const;
  if (!fields.every((field) => typeof totals[field] === 'number' && Number.isFinite(totals[field]))) {
    throw new Error(`the OTLP stream client ended (exit code ${exitCode}) without its totals; its last line: ${JSON.stringify(last.slice(0, 200))}`);
  }
  const [records, accepted, late, elapsedMs] = fields.map((field) => totals[field] as number) as [number, number, number, number];
  return { records, accepted, late, elapsedMs };
}

/** What the load did over a screen's samples, for the report: the stream's pace as the receiver took it, and the runs. */
export function describeLoads(loads: readonly LoadReport[]): string {
  const seconds = loads.reduce((sum, load) => sum + load.elapsedMs, 0) / 1000;
  const accepted = loads.reduce((sum, load) => sum + load.accepted, 0);
  const late = loads.reduce((sum, load) => sum + load.late, 0);
  const runs = Math.min(...loads.map((load) => load.runsStarted));
  return `an OTLP stream (${Math.round(accepted / seconds).toLocaleString('en-US')} records/s accepted of ${RECORDS_PER_SECOND.toLocaleString('en-US')} asked, ${late} late ticks) and ${runs} live runs`;
}
