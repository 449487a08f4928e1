import { join } from 'node:path';
import type { HivewatchEvent } from '../../core/base/events.js';
import type { TokenUsage } from '../../core/base/usage.js';
import { openStore } from '../../core/store/index.js';
import { JournalBuilder, type ErrorSpec } from '../../core/store/testing/journal-builder.js';
import { writeFlows } from './server.js';

/**
 * A small history for the cost and flow-health journeys, written through the store before
 * `serve` opens the database: a flow whose file checks but whose six newest runs failed, a steady
 * flow whose runs often recover after a retried attempt, a flow whose file no longer checks, and
 * two runs of Claude Code whose only report was zeros (a refused request: no usage).
 */

const GOOD = (prompt: string): string => `agent worker:\n  runtime: "fake"\nsession: worker\n  prompt: "${prompt}"\n`;
const BROKEN = `agent worker:\n  runtime: "fake"\nsession: nobody\n  prompt: "deploy"\n`;

export const COST_FLOWS = { failing: 'user/nightly-triage.prose', steady: 'user/summarise.prose', broken: 'user/deploy.prose' } as const;

const RATE: ErrorSpec = { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code', message: 'runtime claude-code was rate limited: 429 Too Many Requests' };
const CRASH: ErrorSpec = { code: 'RUNTIME_CRASHED', origin: 'runtime:command', message: 'runtime command exited with code 2' };

const priced = (costUsd: number, inputTokens: number, outputTokens: number): TokenUsage => ({ source: 'result', inputTokens, outputTokens, costUsd });
const zeros: TokenUsage = { source: 'result', inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

/** The journal with `usages[i]` on its i-th attempt end. */
function withUsage(events: readonly HivewatchEvent[], usages: readonly TokenUsage[]): HivewatchEvent[] {
  let n = 0;
  return events.map((e) => (e.type === 'attemptSucceeded' || e.type === 'attemptFailed' ? { ...e, usage: usages[n++] ?? zeros } : e));
}

export interface CostHistory {
  /** A failed run of the failing flow ($0.25 + $0.35), and a recovered run of the steady one ($0.17 failed attempt + $0.25). */
  failedRun: string;
  recoveredRun: string;
  /** A run whose attempts reported only zeros. */
  noUsageRun: string;
}

/** Writes the flows into `dir/flows` and the history into `dir/hivewatch.db`, ending about `now`. */
export async function seedCostHistory(dir: string, now: number): Promise<CostHistory> {
  writeFlows(dir, { 'nightly-triage.prose': GOOD('triage the incidents'), 'summarise.prose': GOOD('summarise the issues'), 'deploy.prose': BROKEN });
  const store = await openStore({ path: join(dir, 'hivewatch.db') });
  try {
    for (let i = 0; i < 8; i += 1) {
      const at = now - 5 * 3_600_000 + i * 600_000;
      const b = new JournalBuilder(`steady-${i}`, { flow: COST_FLOWS.steady, flowName: 'summarise', start: at, tick: 2_000 + i * 500 }).start();
      const recovers = i % 2 === 0;
      b.runStep([{ attempts: recovers ? [RATE, 'ok'] : ['ok'] }]);
      await store.appendEvents(withUsage(b.complete().events, recovers ? [priced(0.17, 1200, 80), priced(0.25, 1500, 240)] : [priced(0.25, 1500, 240)]));
    }
    for (let i = 0; i < 6; i += 1) {
      const at = now - 3 * 3_600_000 + i * 900_000;
      const b = new JournalBuilder(`nightly-${i}`, { flow: COST_FLOWS.failing, flowName: 'nightly-triage', start: at, tick: 4_000 }).start();
      b.runStep([{ attempts: [RATE, CRASH] }]);
      await store.appendEvents(withUsage(b.fail().events, [priced(0.25, 2000, 100), priced(0.35, 2600, 300)]));
    }
    const old = new JournalBuilder('deploy-0', { flow: COST_FLOWS.broken, flowName: 'deploy', start: now - 6 * 3_600_000, tick: 3_000 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(old.events);
    for (let i = 0; i < 2; i += 1) {
      const b = new JournalBuilder(`refused-${i}`, {
        flow: COST_FLOWS.steady,
        flowName: 'summarise',
        start: now - 30 * 60_000 + i * 60_000,
        tick: 1_000,
      }).start();
      b.runStep([{ attempts: [RATE, 'ok'] }]);
      await store.appendEvents(withUsage(b.complete().events, [zeros, zeros]));
    }
  } finally {
    await store.close();
  }
  return { failedRun: 'nightly-5', recoveredRun: 'steady-6', noUsageRun: 'refused-1' };
}
