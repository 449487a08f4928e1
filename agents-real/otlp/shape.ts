import type { CapturedExport } from './otlp-capture.js';
import type { CliName } from '../pins.js';
import { jsonLines, lineKind, logEntries, logName, spanEntries, type SpanEntry } from './telemetry.js';

/**
 * The shape of what a CLI printed and exported: which stdout event kinds it printed with which
 * keys, which telemetry events it sent with which attributes (and their value types). Values are
 * left out: they change on every run. A fixture keeps the shape its recordings had in common
 * (`required`) and everything any of them had (`seen`); a fresh run of the same spec must have
 * all of `required`, and whatever it lacks is named, as a format that moved.
 */

export interface RunShape {
  /** stdout JSON line kind (`type`, `type/subtype`, `item.completed/agent_message`) → keys. */
  stdout: Record<string, string[]>;
  /** Log event name → `attribute:type`. */
  logs: Record<string, string[]>;
  /** Resource attributes of the logs, `key:type`. */
  logResource: string[];
  /** Span name → `attribute:type` (Codex: only spans that carry events; its hundreds of internal spans are not a contract). */
  spans: Record<string, string[]>;
  /** Span event name → `attribute:type`. */
  spanEvents: Record<string, string[]>;
}

export interface ShapeInput {
  cli: CliName;
  stdout: string;
  otlp: readonly CapturedExport[];
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const typed = (record: Record<string, unknown>): string[] => Object.entries(record).map(([k, v]) => `${k}:${typeOf(v)}`);

function add(into: Record<string, Set<string>>, key: string, items: Iterable<string>): void {
  const set = (into[key] ??= new Set<string>());
  for (const item of items) set.add(item);
}

const sorted = (sets: Record<string, Set<string>>): Record<string, string[]> =>
  Object.fromEntries(
    Object.keys(sets)
      .sort()
      .map((k) => [k, [...(sets[k] ?? [])].sort()]),
  );

function lineKeys(line: Record<string, unknown>): string[] {
  const keys = Object.keys(line);
  const item = line.item;
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) keys.push(...Object.keys(item).map((k) => `item.${k}`));
  return keys;
}

/** Codex names its span events by source location; the `event.name` attribute, when there, is the event. */
function spanEventName(name: string, attributes: Record<string, unknown>): string {
  const attribute = attributes['event.name'];
  return typeof attribute === 'string' && attribute !== '' ? attribute : name;
}

function spansInShape(cli: CliName, spans: SpanEntry[]): SpanEntry[] {
  return cli === 'codex-cli' ? spans.filter((s) => s.events.length > 0) : spans;
}

export function shapeOf(input: ShapeInput): RunShape {
  const stdout: Record<string, Set<string>> = {};
  for (const line of jsonLines(input.stdout)) add(stdout, lineKind(line), lineKeys(line));
  const logs: Record<string, Set<string>> = {};
  const resource = new Set<string>();
  for (const entry of logEntries(input.otlp)) {
    add(logs, logName(entry), typed(entry.attributes));
    for (const key of typed(entry.resource)) resource.add(key);
  }
  const spans: Record<string, Set<string>> = {};
  const spanEvents: Record<string, Set<string>> = {};
  for (const span of spansInShape(input.cli, spanEntries(input.otlp))) {
    add(spans, span.name, typed(span.attributes));
    for (const event of span.events) add(spanEvents, spanEventName(event.name, event.attributes), typed(event.attributes));
  }
  return { stdout: sorted(stdout), logs: sorted(logs), logResource: [...resource].sort(), spans: sorted(spans), spanEvents: sorted(spanEvents) };
}

type Part = 'stdout' | 'logs' | 'spans' | 'spanEvents';
const PARTS: Record<Part, string> = { stdout: 'stdout line', logs: 'OTLP log event', spans: 'OTLP span', spanEvents: 'OTLP span event' };

function combine(a: RunShape, b: RunShape, keep: (inA: boolean, inB: boolean) => boolean): RunShape {
  const merge = (x: string[], y: string[]): string[] => [...new Set([...x, ...y])].filter((k) => keep(x.includes(k), y.includes(k))).sort();
  const part = (x: Record<string, string[]>, y: Record<string, string[]>): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (const key of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      if (!keep(key in x, key in y)) continue;
      out[key] = merge(x[key] ?? [], y[key] ?? []);
    }
    return out;
  };
  return {
    stdout: part(a.stdout, b.stdout),
    logs: part(a.logs, b.logs),
    logResource: merge(a.logResource, b.logResource),
    spans: part(a.spans, b.spans),
    spanEvents: part(a.spanEvents, b.spanEvents),
  };
}

/** What every one of the shapes has. */
export function commonShape(shapes: RunShape[]): RunShape {
  const [first, ...rest] = shapes;
  if (!first) throw new Error('commonShape needs at least one shape');
  return rest.reduce((acc, s) => combine(acc, s, (x, y) => x && y), first);
}

/** Everything any of the shapes has. */
export function seenShape(shapes: RunShape[]): RunShape {
  const [first, ...rest] = shapes;
  if (!first) throw new Error('seenShape needs at least one shape');
  return rest.reduce((acc, s) => combine(acc, s, (x, y) => x || y), first);
}

/** What `required` has that `fresh` lacks, one sentence each (empty: nothing moved). */
export function missingFrom(required: RunShape, fresh: RunShape): string[] {
  const out: string[] = [];
  for (const part of Object.keys(PARTS) as Part[]) {
    for (const [name, keys] of Object.entries(required[part])) {
      const now = fresh[part][name];
      if (!now) {
        out.push(`${PARTS[part]} "${name}" is no longer sent`);
        continue;
      }
      for (const key of keys.filter((k) => !now.includes(k))) {
        const field = key.slice(0, key.lastIndexOf(':'));
        const retyped = now.find((k) => k.startsWith(`${field}:`));
        out.push(`${PARTS[part]} "${name}": ${retyped ? `"${key}" is now "${retyped}"` : `"${key}" is gone`}`);
      }
    }
  }
  for (const key of required.logResource.filter((k) => !fresh.logResource.includes(k))) out.push(`OTLP log resource: "${key}" is gone`);
  return out;
}

/** Names (line kinds, events, spans) in `fresh` that `seen` never had: new formats, reported, not failed. */
export function newIn(seen: RunShape, fresh: RunShape): string[] {
  const out: string[] = [];
  for (const part of Object.keys(PARTS) as Part[]) {
    for (const name of Object.keys(fresh[part]).filter((n) => !(n in seen[part]))) out.push(`${PARTS[part]} "${name}" is new`);
  }
  return out;
}

/** How one recording ended: whether what it exported is all it emitted. */
export interface RecordedShape {
  shape: RunShape;
  exitCode: number | null;
  killedBy: string | null;
}

/**
 * Events a CLI emits on a timer of its own rather than because of the run: in a run's shape only
 * when the run happened to last long enough (Claude Code's transcript sweep, a few seconds in).
 */
export const TIMED_EVENTS: Readonly<Record<CliName, readonly string[]>> = {
  'claude-code': ['claude_code.retention_sweep'],
  'codex-cli': [],
};

/**
 * What a fresh run of the spec must have: what all recordings had, less what depends on timing.
 * - Logs count only when they were complete: Claude Code flushes its logs when it exits, whatever
 *   the exit; Codex only when `exec` exits 0 (a failed or killed one keeps what its periodic
 *   export had sent, which depends on timing: codex-cli.retries.real.test.ts shows it).
 * - Traces count only for Claude Code runs that exited 0: a failed one (a stall ending in its
 *   timeout, on a loaded machine) was seen exporting no trace at all, its logs complete. Codex's
 *   never count: which of its spans are ended before the flush varies run to run.
 * - TIMED_EVENTS never count.
 */
export function requiredShape(cli: CliName, recordings: RecordedShape[]): RunShape {
  const common = commonShape(recordings.map((r) => r.shape));
  const clean = recordings.every((r) => r.exitCode === 0 && r.killedBy === null);
  const complete = cli === 'claude-code' || clean;
  const timed = new Set(TIMED_EVENTS[cli]);
  const logs = complete ? Object.fromEntries(Object.entries(common.logs).filter(([name]) => !timed.has(name))) : {};
  const traces = cli === 'claude-code' && clean;
  return {
    stdout: common.stdout,
    logs,
    logResource: complete ? common.logResource : [],
    spans: traces ? common.spans : {},
    spanEvents: traces ? common.spanEvents : {},
  };
}
