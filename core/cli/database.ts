import { defaultDatabasePath, openStore, type HivewatchStore } from '../store/index.js';
import { stringFlag, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

/** `--db PATH`, else `HIVEWATCH_DB`, else the OS data directory. */
export function databasePathOf(args: ParsedArgs, io: CliIo): string {
  return stringFlag(args, 'db') ?? (io.env.HIVEWATCH_DB || defaultDatabasePath());
}

export async function openCliStore(args: ParsedArgs, io: CliIo, options: { readonly?: boolean } = {}): Promise<HivewatchStore> {
  const store = await openStore({ path: databasePathOf(args, io), readonly: options.readonly ?? false });
  // What start-up recovery did with agent processes a dead host left: ended, or left alone and why.
  for (const run of store.recovered) for (const group of run.processes) io.err(`run ${run.runId} interrupted: ${group.message}\n`);
  return store;
}

/** Parses `30d`, `24h`, `15m`, `90s` into milliseconds; the CLI's time windows. */
export function parseAge(text: string): number | null {
  const match = /^(\d+)(s|m|h|d|w)$/.exec(text.trim());
  if (!match) return null;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(match[1]) * unit;
}
