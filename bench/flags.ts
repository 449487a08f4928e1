import { parseArgs } from 'node:util';

/** The benches `--only` names, in the order a full run measures them. */
const BENCHES = [
  'engine', 'store', 'checkpoints', 'live', 'otel', 'postgres', 'postgres-live', 'postgres-writer', 'postgres-errors',
  'dead-host', 'postgres-dead-host', 'serve-load', 'fanout', 'ui', 'history', 'bulk',
] as const;
type BenchName = (typeof BENCHES)[number];

/** Options the browser benches (`ui`, `history`) read themselves; every other bench refuses them. */
const BROWSER_OPTIONS = ['samples', 'filter-samples', 'errors', 'screens'] as const;

export const BENCH_USAGE = `usage: npm run bench [-- --quick] [-- --json] [-- --only NAME]
  --quick   each bench's small workload, judged against its own targets (what CI runs)
  --json    the figures as JSON
  --only    one bench: ${BENCHES.join(', ')}
  ui/history also take --samples N, --filter-samples N, --errors N, --screens all|cost`;

export type BenchFlags =
  | { kind: 'help' }
  | { kind: 'run'; quick: boolean; json: boolean; only: BenchName | null; browserArgs: string[] };

export class BenchFlagError extends Error {}

function isBench(name: string): name is BenchName {
  return (BENCHES as readonly string[]).includes(name);
}

/**
 * The bench's command line, parsed strictly: a misspelt flag (`--quik`) or name would otherwise run
 * the full workload or nothing at all and pass, so each is refused with the usage instead.
 */
export function parseBenchFlags(argv: readonly string[]): BenchFlags {
  const browserOptions = Object.fromEntries(BROWSER_OPTIONS.map((name) => [name, { type: 'string' as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: { quick: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, only: { type: 'string' }, ...browserOptions },
    }));
  } catch (error) {
    throw new BenchFlagError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return { kind: 'help' };
  const only = values.only;
  if (typeof only === 'string' && !isBench(only)) throw new BenchFlagError(`unknown bench "${only}": one of ${BENCHES.join(', ')}`);
  const chosen = typeof only === 'string' ? only : null;
  const browserArgs: string[] = [];
  for (const name of BROWSER_OPTIONS) {
    const value = values[name];
    if (typeof value !== 'string') continue;
    if (chosen !== 'ui' && chosen !== 'history') throw new BenchFlagError(`--${name} is read only by --only ui or --only history`);
    browserArgs.push(`--${name}`, value);
  }
  const quick = values.quick === true;
  const json = values.json === true;
  if (quick) browserArgs.push('--quick');
  if (json) browserArgs.push('--json');
  return { kind: 'run', quick, json, only: chosen, browserArgs };
}
