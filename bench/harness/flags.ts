import { parseArgs } from 'node:util';
import { HivewatchError } from '../../core/base/errors/hivewatch-error.js';

/** The benches `--only` names, in the order a full run measures them. */
const BENCHES = [
  'engine',
  'store',
  'checkpoints',
  'live',
  'otel',
  'postgres',
  'postgres-live',
  'postgres-writer',
  'postgres-errors',
  'dead-host',
  'postgres-dead-host',
  'serve-load',
  'fanout',
  'ui',
  'history',
  'bulk',
  'triage',
] as const;
type BenchName = (typeof BENCHES)[number];

/** Options some benches read themselves, and which: every other bench refuses them. */
const BENCH_OPTIONS: Record<string, readonly BenchName[]> = {
  samples: ['ui', 'history', 'triage'],
  'filter-samples': ['ui', 'history'],
  errors: ['ui', 'history', 'triage', 'postgres-errors'],
  screens: ['ui', 'history'],
  'baseline-samples': ['triage'],
};

export const BENCH_USAGE = `usage: npm run bench [-- --quick] [-- --json] [-- --only NAME]
  --quick   each bench's small workload, judged against its own quick bounds (what CI runs)
  --json    the figures as JSON
  --only    one bench: ${BENCHES.join(', ')}
  ui/history also take --samples N, --filter-samples N, --errors N, --screens all|cost|loaded
  triage also takes --samples N, --baseline-samples N, --errors N
  postgres-errors also takes --errors N (the history's size; 1,000,000 by default)`;

export type BenchFlags = { kind: 'help' } | { kind: 'run'; quick: boolean; json: boolean; only: BenchName | null; benchArgs: string[] };

/** A bench command line that names no flag or bench of it: the message says which. */
export class BenchFlagError extends HivewatchError {
  constructor(message: string) {
    super('USER_USAGE', { message });
    this.name = 'BenchFlagError';
  }
}

function isBench(name: string): name is BenchName {
  return (BENCHES as readonly string[]).includes(name);
}

/**
 * The bench's command line, parsed strictly: a misspelt flag (`--quik`) or name would otherwise run
 * the full workload or nothing at all and pass, so each is refused with the usage instead.
 */
/**
 * A bench option that counts something (`--errors`, `--samples`, …): a positive whole number, or
 * `fallback` when the option is not given. Anything else is refused with the option's name, so
 * every bench words the refusal the same way.
 */
export function wholeOption(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < 1) throw new BenchFlagError(`--${option} takes a positive whole number, not "${value}"`);
  return n;
}

export function parseBenchFlags(argv: readonly string[]): BenchFlags {
  const benchOptions = Object.fromEntries(Object.keys(BENCH_OPTIONS).map((name) => [name, { type: 'string' as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: { quick: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, only: { type: 'string' }, ...benchOptions },
    }));
  } catch (error) {
    throw new BenchFlagError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return { kind: 'help' };
  const only = values.only;
  if (typeof only === 'string' && !isBench(only)) throw new BenchFlagError(`unknown bench "${only}": one of ${BENCHES.join(', ')}`);
  const chosen = typeof only === 'string' ? only : null;
  const benchArgs: string[] = [];
  for (const [name, readers] of Object.entries(BENCH_OPTIONS)) {
    const value = values[name];
    if (typeof value !== 'string') continue;
    if (chosen === null || !readers.includes(chosen)) throw new BenchFlagError(`--${name} is read only by ${readers.map((r) => `--only ${r}`).join(' or ')}`);
    benchArgs.push(`--${name}`, value);
  }
  const quick = values.quick === true;
  const json = values.json === true;
  if (quick) benchArgs.push('--quick');
  if (json) benchArgs.push('--json');
  return { kind: 'run', quick, json, only: chosen, benchArgs };
}
