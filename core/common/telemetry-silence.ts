/**
 * Telemetry health (docs/otel.md "Telemetry health"): how often each source's exporter sends while
 * its session is open, and when its silence is worth saying. An exporter that stops looks, to the
 * receiver, exactly like a quiet session; the difference Hivewatch can see is a session or a preset
 * attempt that is still open while its source has sent nothing for longer than its exporter's
 * interval allows.
 */

/** Claude Code's log exporter interval (`OTEL_LOGS_EXPORT_INTERVAL`, default 5000 ms; its Monitoring docs). */
const CLAUDE_CODE_EVERY_MS = 5_000;
/** Codex's log exporter sends every second (docs/real-agents.md "Exports"). */
const CODEX_EVERY_MS = 1_000;
/**
 * Any other OTLP sender: the OpenTelemetry SDKs' batch span processor default
 * (`OTEL_BSP_SCHEDULE_DELAY`, 5000 ms), the signal GenAI apps send.
 */
const OTEL_SDK_EVERY_MS = 5_000;

/**
 * What a reader of the store needs to read only the sources that could be silent now: the one
 * origin with the shortest interval (Codex), and the interval every other origin has at least.
 */
export const SILENCE_READ = {
  fastOrigin: 'runtime:codex-cli',
  fastEveryMs: CODEX_EVERY_MS,
  othersEveryMs: Math.min(CLAUDE_CODE_EVERY_MS, OTEL_SDK_EVERY_MS),
} as const;

/** A source is silent once nothing came for this many of its intervals. */
export const SILENT_AFTER_INTERVALS = 2;

/** How often a source's exporter sends while it has something to send, by its origin (`runtime:<agent>`). */
export function expectedEveryMs(origin: string): number {
  if (origin === 'runtime:claude-code') return CLAUDE_CODE_EVERY_MS;
  if (origin === 'runtime:codex-cli') return CODEX_EVERY_MS;
  return OTEL_SDK_EVERY_MS;
}

/** An open session or running preset attempt whose source has said nothing for longer than twice its interval. */
export interface TelemetrySilence {
  /** `runtime:<agent>`: which exporter is silent. */
  origin: string;
  /** When the receiver last took a payload of it; null when none ever arrived. */
  lastSeenAt: number | null;
  /** Since when it is silent: its last payload, else when it was expected to start sending. */
  silentSince: number;
  silentMs: number;
  expectedEveryMs: number;
}

/**
 * The silence of a source last seen at `lastSeenAt` (or expected since `expectedSince` when it never
 * sent), as of `now`; null while it is within twice its interval.
 */
export function silenceOf(origin: string, lastSeenAt: number | null, expectedSince: number, now: number): TelemetrySilence | null {
  const every = expectedEveryMs(origin);
  const silentSince = lastSeenAt ?? expectedSince;
  const silentMs = now - silentSince;
  if (silentMs <= SILENT_AFTER_INTERVALS * every) return null;
  return { origin, lastSeenAt, silentSince, silentMs, expectedEveryMs: every };
}

/** `45 s`, `4 min`, `2 h 05 min`: a silence as the CLI and the window say it (whole units, rounded down). */
export function silenceDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/**
 * "no telemetry for 4 min (expected every 5 s)"; when none ever came (only a preset attempt's CLI,
 * expected from the attempt's start): "no telemetry since the attempt started 4 min ago (…)".
 */
export function silenceWords(silence: Pick<TelemetrySilence, 'lastSeenAt' | 'silentMs' | 'expectedEveryMs'>): string {
  const expected = `(expected every ${silenceDuration(silence.expectedEveryMs)})`;
  const lasted = silenceDuration(silence.silentMs);
  return silence.lastSeenAt === null ? `no telemetry since the attempt started ${lasted} ago ${expected}` : `no telemetry for ${lasted} ${expected}`;
}
