import { openCommandHistory, type CommandHistory } from '../service/history/command-history.js';
import { defaultHistoryPath, openHistory, type History } from '../service/history/open.js';
import { stringFlag, UsageError, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

/** `--db PATH`, else `HIVEWATCH_DB`, else the OS data directory. */
export function databasePathOf(args: ParsedArgs, io: CliIo): string {
  return stringFlag(args, 'db') ?? (io.env.HIVEWATCH_DB || defaultHistoryPath());
}

/** The history `--db` names, as a command that reads and acts on it holds it (never the store itself). */
export async function openCliCommandHistory(args: ParsedArgs, io: CliIo): Promise<CommandHistory> {
  const history = await openCommandHistory({ path: databasePathOf(args, io), readonly: false });
  sayRecovered(history, io);
  return history;
}

/** The history `--db` names, read through the service's API (`now`: the clock its reads judge by). */
export async function openCliHistory(args: ParsedArgs, io: CliIo, options: { now?: () => number } = {}): Promise<History> {
  const history = await openHistory({ path: databasePathOf(args, io), ...(options.now !== undefined ? { now: options.now } : {}) });
  sayRecovered(history, io);
  return history;
}

/** What start-up recovery did with agent processes a dead host left: ended, or left alone and why. */
function sayRecovered(opened: Pick<History, 'recovered'>, io: CliIo): void {
  for (const run of opened.recovered) for (const group of run.processes) io.err(`run ${run.runId} interrupted: ${group.message}\n`);
}

/** The longest age the CLI's time windows take (`--since`, `--older-than`, `since=`): 3650 days, about ten years. */
const MAX_AGE_MS = 3_650 * 86_400_000;

/**
 * Parses `30d`, `24h`, `15m`, `90s`, `2w` into milliseconds; the CLI's time windows. Null for
 * anything else; Infinity past `max` (so a caller can say the bound instead of "not an age").
 */
export function parseAge(text: string, max: number = MAX_AGE_MS): number | null {
  const match = /^(\d+)(s|m|h|d|w)$/.exec(text.trim());
  if (!match) return null;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  const ms = Number(match[1]) * unit;
  return ms > max ? Infinity : ms;
}

/** How a bound reads: `3650d`, `365d`, `24h`. */
function formatAge(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 1_000)}s`;
}

/** An age flag's milliseconds, or a usage error naming `label` (`--since`, `--where: since`) and the bound. */
export function ageFlag(text: string, label: string, max: number = MAX_AGE_MS): number {
  const ms = parseAge(text, max);
  if (ms === null) throw new UsageError(`${label} must be an age like 30m, 24h or 7d, got "${text}"`);
  if (ms === Infinity) throw new UsageError(`${label} must be at most ${formatAge(max)}, got "${text}"`);
  return ms;
}
