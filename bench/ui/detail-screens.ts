import Database from 'better-sqlite3';
import { openStore } from '../../core/store/index.js';
import { JournalBuilder, type ErrorSpec, type TaskScript } from '../../core/store/testing/journal-builder.js';
import type { Mark } from './screen-opens.js';

/**
 * The history bench's detail screens: a run's page, an issue's page and Compare. The bulk history's
 * runs have no journal (bulk-seed.ts), so two runs are journaled into it through the store, as a
 * host writes them: one flow, a plan step and a fan-out of TASKS tasks that each retry on 429s
 * (every fourth fails for good, caught), the second run differing in two tasks. The issue opened
 * is the history's largest (the most occurrences: the worst case for its counts and trend).
 */

const TASKS = 200;
const RETRIES = 2;
const DETAIL_RUNS = { before: 'run_bench_detail_before', after: 'run_bench_detail_after' } as const;

/** The page's loading states gone, and `ready` drawn. */
const settled = (ready: string): string => `document.querySelector('main .state-loading') === null && ${ready}`;

const RUN_DRAWN = settled(`document.querySelector('.run-detail .tl-row[data-task-id]') !== null`);
const ISSUE_FILLED = settled(
  `document.querySelector('.issue-page[data-issue] [data-testid="issue-trend"]') !== null
  && document.querySelector('.issue-occurrences .occurrence-list') !== null
  && document.querySelector('.issue-runs-table') !== null`,
);
const COMPARE_DRAWN = settled(`document.querySelector('[data-testid="compare-table"] tbody[data-group]') !== null`);

/** Every screen under 500 ms cold and 300 ms warm: the bound the window is held to at ten million errors. */
const mark = (label: string, test: string): Mark[] => [{ label, test, target: 500, warmTarget: 300 }];

export interface DetailScreen {
  name: string;
  hash: string;
  marks: readonly Mark[];
}

function journal(runId: string, start: number, failsForGood: (task: number) => boolean): JournalBuilder {
  const limited: ErrorSpec = { code: 'RUNTIME_RATE_LIMIT', message: 'upstream said 429', origin: 'runtime:fake' };
  const fanOut: TaskScript[] = Array.from({ length: TASKS }, (_, i) => ({
    name: `shard ${i}`,
    attempts: failsForGood(i) ? Array.from({ length: RETRIES + 1 }, () => limited) : [...Array.from({ length: RETRIES }, () => limited), 'ok'],
    caught: failsForGood(i),
    delayMs: 2_000 + 500 * (i % 3),
  }));
  return new JournalBuilder(runId, { start, tick: 40, flow: 'examples/04-parallel-fan-out.prose', flowName: '04-parallel-fan-out' })
    .start()
    .runStep([{ name: 'plan', attempts: ['ok'] }])
    .runStep(fanOut)
    .complete();
}

/** Journals the two runs into the history unless a run of the same id is there (a cached history is reused). */
export async function seedDetailRuns(dbPath: string, now = Date.now()): Promise<void> {
  const db = new Database(dbPath, { readonly: true });
  const present = db.prepare('SELECT 1 FROM runs WHERE id = ?').get(DETAIL_RUNS.before) !== undefined;
  db.close();
  if (present) return;
  const start = now - 2 * 3_600_000;
  const store = await openStore({ path: dbPath });
  try {
    await store.appendEvents(journal(DETAIL_RUNS.before, start, (i) => i % 4 === 3).events);
    await store.appendEvents(journal(DETAIL_RUNS.after, start + 600_000, (i) => (i % 4 === 3 && i !== 11) || i === 100).events);
  } finally {
    await store.close();
  }
}

/** The issue with the most occurrences. */
function largestIssue(dbPath: string): { fingerprint: string; count: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const row = db.prepare('SELECT fingerprint, count FROM error_groups ORDER BY count DESC, fingerprint LIMIT 1').get() as
      | { fingerprint: string; count: number }
      | undefined;
    if (row === undefined) throw new Error(`history bench: ${dbPath} holds no issue to open`);
    return row;
  } finally {
    db.close();
  }
}

export function detailScreens(dbPath: string): DetailScreen[] {
  const issue = largestIssue(dbPath);
  const run = (id: string): string => encodeURIComponent(id);
  return [
    {
      name: `Run page (${TASKS + 1} tasks, ${RETRIES} retries each)`,
      hash: `#/runs/${run(DETAIL_RUNS.before)}`,
      marks: mark("the timeline's first rows drawn", RUN_DRAWN),
    },
    {
      name: `Issue page (the largest, ${issue.count.toLocaleString('en-US')} occurrences)`,
      hash: `#/issues/${encodeURIComponent(issue.fingerprint)}`,
      marks: mark('trend, occurrences and runs affected drawn', ISSUE_FILLED),
    },
    {
      name: `Compare (two runs of ${TASKS + 1} tasks)`,
      hash: `#/compare/${run(DETAIL_RUNS.before)}/${run(DETAIL_RUNS.after)}`,
      marks: mark('compare table drawn', COMPARE_DRAWN),
    },
  ];
}
