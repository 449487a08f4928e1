import { parseDuration } from '../../base/duration.js';

/**
 * The fake runtime's script: `simulate: "rate_limit, rate_limit, ok"` gives one outcome per
 * attempt, the last one repeating. Parsed here so `check` can reject a bad script at line:col.
 */
export type SimulatedOutcome =
  | { kind: 'ok'; text: string | null }
  | { kind: 'rate_limit' }
  | { kind: 'timeout' }
  | { kind: 'crash' }
  | { kind: 'exit'; code: number }
  | { kind: 'malformed' }
  | { kind: 'no_changes' }
  | { kind: 'slow'; ms: number };

const SIMULATED_KINDS = ['ok', 'ok:<text>', 'rate_limit', 'timeout', 'crash', 'exit:<n>', 'malformed', 'no_changes', 'slow:<duration>'] as const;

export type SimulateParse = { ok: true; outcomes: SimulatedOutcome[] } | { ok: false; message: string };

function parseOne(item: string): SimulatedOutcome | string {
  const colon = item.indexOf(':');
  const head = colon === -1 ? item : item.slice(0, colon);
  const arg = colon === -1 ? null : item.slice(colon + 1);
  switch (head) {
    case 'ok':
      return { kind: 'ok', text: arg };
    case 'rate_limit':
    case 'timeout':
    case 'crash':
    case 'malformed':
    case 'no_changes':
      return arg === null ? { kind: head } : `outcome "${head}" takes no argument`;
    case 'exit': {
      if (arg === null || !/^\d{1,3}$/.test(arg) || Number(arg) > 255) return 'outcome "exit" needs a code from 0 to 255, e.g. "exit:2"';
      return { kind: 'exit', code: Number(arg) };
    }
    case 'slow': {
      const duration = parseDuration(arg ?? '');
      return duration.ok ? { kind: 'slow', ms: duration.ms } : 'outcome "slow" needs a duration, e.g. "slow:2s"';
    }
    default:
      return `unknown simulated outcome "${head}": expected one of ${SIMULATED_KINDS.join(', ')}`;
  }
}

export function parseSimulate(text: string): SimulateParse {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) return { ok: false, message: 'simulate needs a comma list of outcomes, e.g. "rate_limit, ok"' };
  const outcomes: SimulatedOutcome[] = [];
  for (const item of items) {
    const parsed = parseOne(item);
    if (typeof parsed === 'string') return { ok: false, message: parsed };
    outcomes.push(parsed);
  }
  return { ok: true, outcomes };
}

/** The outcome for a 1-based attempt: the list in order, then its last item forever. */
export function outcomeForAttempt(outcomes: readonly SimulatedOutcome[], attempt: number): SimulatedOutcome {
  const outcome = outcomes[Math.min(attempt, outcomes.length) - 1];
  if (outcome === undefined) throw new RangeError('no simulated outcomes');
  return outcome;
}
