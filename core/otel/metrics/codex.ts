import { own, type TelemetryRecord } from '../receive/decode.js';
import type { MetricPoint } from './decode.js';

/**
 * Which metric data points Hivewatch reads (pure; docs/otel.md "Metrics"). Codex 0.171.0 counts a
 * started thread in `codex.thread.started`; a spawned thread's point carries `session_source`
 * `subagent_thread_spawn_<parent thread id>_d<depth>`. Its metrics are one resource per process
 * (service.name `codex_exec`, no conversation id on the resource or the points), so a point names
 * the parent thread and never the spawned one: it is journaled on the parent's run (a thread it
 * started, and how many), and the link itself comes from the spawn log record (subagents.ts).
 * `codex.multi_agent.spawn` names neither thread (its `session_source` is the spawning thread's
 * own source: `exec` for the first thread, its parent's spawn for a spawned one), so it is read
 * and counted, never journaled; every other point is dropped, counted.
 */

export const CODEX_THREAD_STARTED = 'codex.thread.started';
export const CODEX_MULTI_AGENT_SPAWN = 'codex.multi_agent.spawn';
/** The key under which a point's number is journaled with its attributes. */
const METRIC_VALUE_KEY = 'metric.value';

const SPAWNED = /^subagent_thread_spawn_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

export interface MetricReading {
  /** The points Hivewatch journals, as telemetry records (`signal: 'metrics'`). */
  records: TelemetryRecord[];
  /** Points read but not journaled (`codex.multi_agent.spawn`: it names no thread). */
  read: number;
  /** Every other point: accepted and dropped. */
  dropped: number;
}

const isCodex = (point: MetricPoint): boolean => (own(point.resource, 'service.name')?.toString() ?? '').startsWith('codex');

function recordOf(point: MetricPoint): TelemetryRecord {
  // A copy: the point's keys stay data (decode.ts attributes), the value beside them.
  const attributes = { ...point.attributes };
  Object.defineProperty(attributes, METRIC_VALUE_KEY, { value: point.value, enumerable: true, writable: true, configurable: true });
  return {
    name: point.metric,
    timeMs: point.timeMs,
    timeGiven: point.timeGiven,
    timeField: point.timeField,
    attributes,
    resource: point.resource,
    signal: 'metrics',
    body: null,
  };
}

export function readMetricPoints(points: readonly MetricPoint[]): MetricReading {
  const reading: MetricReading = { records: [], read: 0, dropped: 0 };
  for (const point of points) {
    const source = own(point.attributes, 'session_source');
    if (isCodex(point) && point.metric === CODEX_THREAD_STARTED && typeof source === 'string' && SPAWNED.test(source)) reading.records.push(recordOf(point));
    else if (isCodex(point) && point.metric === CODEX_MULTI_AGENT_SPAWN) reading.read += 1;
    else reading.dropped += 1;
  }
  return reading;
}
