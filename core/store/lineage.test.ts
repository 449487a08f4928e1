import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './index.js';
import { PREVIOUS_SQL, RESUMES_SQL, RETRIES_SQL } from './queries/lineage.js';
import { JournalBuilder } from './testing/journal-builder.js';

let store: SqliteStore;
const T0 = Date.UTC(2026, 0, 1);

function run(id: string, at: number, options: { flow?: string; retryOf?: string; resumedFrom?: string } = {}): void {
  const b = new JournalBuilder(id, {
    flow: options.flow ?? 'flows/a.prose',
    start: T0 + at,
    retryOf: options.retryOf ?? null,
    resumedFrom: options.resumedFrom ?? null,
  }).start();
  b.runStep([{ attempts: ['ok'] }]).complete();
  store.appendEvents(b.events);
}

beforeEach(() => {
  store = openSqliteStore({ path: ':memory:', recover: false });
});
afterEach(() => store.close());

describe('run lineage (both directions of retryOf / resumedFrom)', () => {
  it('names the retries and resumes of a run oldest first, and the flow’s run just before it', () => {
    run('origin', 0);
    run('other-flow', 500, { flow: 'flows/b.prose' });
    run('retry-2', 2_000, { retryOf: 'origin' });
    run('retry-1', 1_000, { retryOf: 'origin' });
    run('resume-1', 1_500, { resumedFrom: 'origin' });
    run('retry-of-retry', 3_000, { retryOf: 'retry-1' });

    const lineage = store.runLineage('origin');
    expect(lineage?.retries.map((r) => r.id)).toEqual(['retry-1', 'retry-2']);
    expect(lineage?.resumes.map((r) => r.id)).toEqual(['resume-1']);
    expect(lineage?.retries[0]).toMatchObject({ id: 'retry-1', status: 'completed' });
    expect(lineage?.previous).toBeNull();

    // The same flow's previous run, whatever its relation; another flow's never.
    expect(store.runLineage('retry-2')?.previous?.id).toBe('resume-1');
    expect(store.runLineage('retry-of-retry')?.previous?.id).toBe('retry-2');
    expect(store.runLineage('retry-1')?.retries.map((r) => r.id)).toEqual(['retry-of-retry']);
    expect(store.runLineage('missing')).toBeNull();
  });

  it('breaks a tie of start times by id, so "previous" is one run', () => {
    run('b-run', 1_000);
    run('a-run', 1_000);
    expect(store.runLineage('b-run')?.previous?.id).toBe('a-run');
    expect(store.runLineage('a-run')?.previous).toBeNull();
  });

  it('reads each direction through an index, not a scan of the runs table', () => {
    run('origin', 0);
    const planOf = (sql: string, ...params: unknown[]): string =>
      (store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((p) => p.detail).join('\n');
    expect(planOf(RETRIES_SQL, 'origin')).toContain('USING INDEX runs_retry_of');
    expect(planOf(RESUMES_SQL, 'origin')).toContain('USING INDEX runs_resumed_from');
    expect(planOf(PREVIOUS_SQL, 'flows/a.prose', 0, 0, 'origin')).toContain('USING INDEX runs_flow');
  });
});
