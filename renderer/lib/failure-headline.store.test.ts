import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndingError } from '../../core/service/api.js';
import { endingErrorOf, endingSummary, openSqliteStore } from '../../core/store/index.js';
import { failFast, finallyFailed, rethrow, retryLimit, thrownInCatch } from '../../core/store/testing/failure-journals.js';
import { failureSummary } from './failure-headline.js';

/**
 * The window's "Failed because" line (failure-headline.ts) and the CLI's (core/store/projection/ending-words.ts)
 * are two copies of one rule, since the renderer sees only the API's types: on the ending errors
 * the store settles from real journals of every chain shape, both say the same words.
 */

describe('the window and the CLI word a failure alike', () => {
  let store: ReturnType<typeof openSqliteStore>;
  beforeAll(() => {
    store = openSqliteStore({ path: ':memory:' });
    for (const scenario of [
      retryLimit('run_limit', 'chained'),
      rethrow('run_rethrow', 'chained'),
      thrownInCatch('run_thrown', 'chained'),
      finallyFailed('run_finally'),
      failFast('run_fast', 'chained'),
      retryLimit('run_legacy', 'legacy'),
    ]) {
      store.appendEvents(scenario.events);
    }
  });
  afterAll(() => store.close());

  it('gives the same summary for each stored ending error', async () => {
    const { runs } = await store.listRuns({ limit: 50 });
    const said = runs.map((run) => {
      const ending = endingErrorOf(run);
      return [run.id, ending && failureSummary(ending as EndingError), ending && endingSummary(ending)];
    });
    expect(said).toHaveLength(6);
    for (const [id, window, cli] of said) expect(window, id ?? '').toBe(cli);
    const byId = new Map(said.map(([id, window]) => [id, window]));
    expect(byId.get('run_limit')).toMatch(/^RUNTIME_TIMEOUT in task \d+:\d+ attempt 3 · .* — gave up after 3 attempts$/);
    expect(byId.get('run_thrown')).toMatch(/^RUNTIME_CRASHED in task .* · .* — the catch threw “deploy failed”$/);
    expect(byId.get('run_rethrow')).toMatch(/^RUNTIME_CRASHED in task .* · .* — caught and rethrown$/);
    expect(byId.get('run_finally')).toMatch(/ — then a finally failed: /);
  });
});
