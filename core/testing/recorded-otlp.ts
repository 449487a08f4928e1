import { readFixture } from '../../agents-real/recording/fixtures-io.js';
import type { CliName } from '../../agents-real/pins.js';

/**
 * A real CLI's recorded telemetry (agents-real/fixtures) sent again, as a test's receiver takes it:
 * the exports in the order they arrived, as OTLP/JSON bodies, with every time moved by one shift
 * and the preset's `hivewatch.*` resource attributes dropped unless the session is to stay
 * linked to the attempt it was recorded in. Nothing else is changed: the records, their ids,
 * attributes and figures are the CLI's.
 */

interface RecordedPayload {
  signal: 'logs' | 'traces' | 'metrics';
  body: Buffer;
}

type Json = Record<string, unknown>;

const TIME_KEYS = new Set(['timeUnixNano', 'observedTimeUnixNano', 'startTimeUnixNano', 'endTimeUnixNano']);

/** Drops the preset's resource attributes (unless `linked`) and shifts every time, in place. */
export function rewriteRecorded(value: unknown, shiftNs: bigint, linked = false): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteRecorded(item, shiftNs, linked);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Json;
  for (const [key, child] of Object.entries(object)) {
    if (TIME_KEYS.has(key) && typeof child === 'string' && child !== '0') object[key] = String(BigInt(child) + shiftNs);
    else if (key === 'resource' && !linked && typeof child === 'object' && child !== null) {
      const resource = child as { attributes?: { key: string }[] };
      resource.attributes = (resource.attributes ?? []).filter((a) => !a.key.startsWith('hivewatch.'));
    } else rewriteRecorded(child, shiftNs, linked);
  }
}

/** The earliest record or span time of the payloads (epoch ms). */
function firstTimeMs(payloads: readonly Buffer[]): number {
  // Codex's exporter writes pretty JSON and leaves a log record's own time 0 (only the observed time is set).
  const times = payloads
    .flatMap((p) => [...p.toString('utf8').matchAll(/"(?:timeUnixNano|observedTimeUnixNano|startTimeUnixNano)":\s*"(\d+)"/g)].map((m) => BigInt(m[1]!)))
    .filter((t) => t > 0n);
  if (times.length === 0) throw new Error('the recording has no timed record');
  return Number(times.reduce((a, b) => (b < a ? b : a)) / 1_000_000n);
}

export interface Replay {
  payloads: RecordedPayload[];
  /** What the CLI printed (its result lines carry its own totals). */
  stdout: string;
  cliVersion: string;
}

/** The recording `cli`/`run` as a session sent from outside Hivewatch, its first record at `at` (epoch ms). */
export function replayRecording(cli: CliName, run: string, at: number): Replay {
  const f = readFixture(cli, run);
  if (!f) throw new Error(`no recording ${cli}/${run}`);
  const shiftNs = BigInt(Math.round(at - firstTimeMs(f.exports.map((e) => e.payload)))) * 1_000_000n;
  const payloads = f.exports.map((e) => {
    if (e.encoding !== 'json') throw new Error(`${cli}/${run}: export ${e.seq} is ${e.encoding}; only OTLP/JSON recordings replay`);
    const json = JSON.parse(e.payload.toString('utf8')) as Json;
    rewriteRecorded(json, shiftNs);
    return { signal: e.signal as RecordedPayload['signal'], body: Buffer.from(JSON.stringify(json)) };
  });
  return { payloads, stdout: f.stdout, cliVersion: f.run.cliVersion };
}

/** The CLI's own total cost: `total_cost_usd` of the last result it printed (every subagent's included). */
export function printedTotalCost(stdout: string): number {
  const results = stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"total_cost_usd"'))
    .map((line) => JSON.parse(line) as { total_cost_usd?: unknown });
  const cost = results.at(-1)?.total_cost_usd;
  if (typeof cost !== 'number') throw new Error('the recording printed no total_cost_usd');
  return cost;
}
