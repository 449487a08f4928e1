import type { HivewatchApi, JournaledEvent, RunDetail } from '../../core/service/api.js';
import { keepRead, takeRead } from '../lib/kept-reads.js';

/**
 * What the run page and Compare read first — a run's detail and its journal — defined once.
 * Compare's are asked by the window as it starts when it opens on Compare (app/first-reads.ts),
 * so they travel in the window's first batch while the screen's chunk loads (lib/kept-reads.ts).
 * The run page's are not: asked there too, its open was no faster (docs/benches.md). Outside the
 * screens' chunk: main.tsx imports it.
 */

/** Events a page of the journal (getEvents' limit at most). */
const EVENTS_PAGE = 1_000;

/** Every event of a run after `afterSeq`, page by page. */
export async function fetchEvents(api: HivewatchApi, runId: string, afterSeq = 0): Promise<JournaledEvent[]> {
  const out: JournaledEvent[] = [];
  let after = afterSeq;
  for (;;) {
    const page = await api.getEvents({ runId, afterSeq: after, limit: EVENTS_PAGE });
    out.push(...page);
    const last = page.at(-1);
    if (page.length < EVENTS_PAGE || !last) return out;
    after = last.seq;
  }
}

/**
 * The whole journal of a run whose projection says it reached `lastSeq`, given its first page
 * (asked beside getRun, in the same batch). A run's seqs run 1, 2, 3 … (the journal's rule the
 * sequencer also relies on), so page k starts after seq k · EVENTS_PAGE and every page is asked
 * at once instead of one after another; events journaled after `lastSeq` was read follow page
 * by page. Should a page not be what its seqs promise, the sequencer still orders and dedupes,
 * and a hole is caught up like a live one.
 */
export async function fetchJournal(api: HivewatchApi, runId: string, lastSeq: number, first: JournaledEvent[]): Promise<JournaledEvent[]> {
  if (first.length < EVENTS_PAGE) return first;
  const starts: number[] = [];
  for (let after = EVENTS_PAGE; after < lastSeq; after += EVENTS_PAGE) starts.push(after);
  const pages = [first, ...(await Promise.all(starts.map((afterSeq) => api.getEvents({ runId, afterSeq, limit: EVENTS_PAGE }))))];
  const out = pages.flat();
  const last = pages.at(-1) ?? [];
  if (last.length === EVENTS_PAGE) out.push(...(await fetchEvents(api, runId, last.at(-1)?.seq ?? 0)));
  return out;
}

export interface RunRead {
  first: RunDetail;
  journal: JournaledEvent[];
}

/**
 * A run's detail and whole journal, or null when there is no such run. The detail and the
 * journal's first page are asked in one turn, so they travel together, the projection read
 * first; a missing run's events answer 404, which only matters when the run is there.
 */
export function readRun(api: HivewatchApi, runId: string): Promise<RunRead | null> {
  const runRead = api.getRun({ runId });
  const firstPage = api.getEvents({ runId, afterSeq: 0, limit: EVENTS_PAGE });
  firstPage.catch(() => undefined);
  return runRead.then(async (first) => (first ? { first, journal: await fetchJournal(api, runId, first.lastSeq, await firstPage) } : null));
}

const runKey = (runId: string): string => `run ${runId}`;

/** The window opens on Compare: both runs' details, asked now. */
export function askCompare(api: HivewatchApi, left: string, right: string, now = Date.now()): void {
  keepRead(runKey(left), api.getRun({ runId: left }), now);
  keepRead(runKey(right), api.getRun({ runId: right }), now);
}

export function takeRun(api: HivewatchApi, runId: string): Promise<RunDetail | null> {
  return takeRead(runKey(runId), () => api.getRun({ runId }));
}
