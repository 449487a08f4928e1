import type { HivewatchStore } from '../../store/index.js';
import type { HourCount } from './forecast.js';

/** The hours a forecast reads: [since, until), whole hours (forecast.ts forecastWindow). */
export interface ForecastSpan {
  since: number;
  until: number;
}

/**
 * Each issue's hours with occurrences in a forecast's week, read from the hourly rollups and
 * held until the data could have changed. A screen's reads ask for the same week several times
 * at once (the list reconciles, then assembles its page; the status filter of every count
 * assembles every issue): one read of the week answers them all. What was read is kept while the
 * week is the same, this process committed nothing (`subscribe`) and no other connection did
 * (`changeToken`): never older than the store, on either engine, whoever wrote.
 */
export class ForecastHistory {
  private readonly held = new Map<string, HourCount[]>();
  private span = '';
  private token: string | null = null;
  /** Counts this process's commits: a read that overlapped one is not kept. */
  private commits = 0;

  private readonly unsubscribe: () => void;

  constructor(private readonly store: HivewatchStore) {
    this.unsubscribe = store.subscribe(() => {
      this.commits++;
      this.held.clear();
    });
  }

  /** Stops listening to the store's commits (its owner is done with it) and forgets what it held. */
  close(): void {
    this.unsubscribe();
    this.held.clear();
  }

  /** Each fingerprint's hours with occurrences in `span`, oldest first. */
  async hours(fingerprints: readonly string[], span: ForecastSpan): Promise<Map<string, HourCount[]>> {
    const token = await this.store.changeToken();
    const key = `${span.since}:${span.until}`;
    if (key !== this.span || token !== this.token) {
      this.held.clear();
      this.span = key;
      this.token = token;
    }
    const missing = fingerprints.filter((fp) => !this.held.has(fp));
    const out = new Map<string, HourCount[]>();
    if (missing.length > 0) {
      const commitsBefore = this.commits;
      const read = await this.read(missing, span);
      const keep = commitsBefore === this.commits && key === this.span && token === this.token;
      for (const [fp, hours] of read) {
        out.set(fp, hours);
        if (keep) this.held.set(fp, hours);
      }
    }
    for (const fp of fingerprints) if (!out.has(fp)) out.set(fp, this.held.get(fp) ?? []);
    return out;
  }

  private async read(fingerprints: readonly string[], span: ForecastSpan): Promise<Map<string, HourCount[]>> {
    const { buckets, trends } = await this.store.groupTrends({ fingerprints, grain: 'hour', since: span.since, until: span.until });
    const out = new Map<string, HourCount[]>();
    for (const fp of fingerprints) {
      const history: HourCount[] = [];
      (trends.get(fp) ?? []).forEach((count, i) => {
        if (count > 0) history.push({ start: buckets[i] as number, count });
      });
      out.set(fp, history);
    }
    return out;
  }
}
