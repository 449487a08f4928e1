/** Durations as the flow language writes them: `500ms`, `30s`, `10m`, `1h`, `1.5s`. */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

export type DurationResult = { ok: true; ms: number } | { ok: false; message: string };

export function parseDuration(text: string): DurationResult {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) {
    return { ok: false, message: `invalid duration "${text}": expected a number with a unit (ms, s, m, h), e.g. "30s"` };
  }
  const unit = match[2] as keyof typeof UNIT_MS;
  return { ok: true, ms: Math.round(Number(match[1]) * UNIT_MS[unit]) };
}

/** 27000 → "27s", 90000 → "1m 30s", 250 → "250ms": how the CLI and UI print delays. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const totalSeconds = Math.round(ms / 1_000);
  const hours = Math.floor(totalSeconds / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  const parts: string[] = [];
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  if (seconds || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join(' ');
}
