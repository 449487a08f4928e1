import { floorTo, GRAIN_MS, GRAINS, type Grain } from './rollups.js';
import type { RunRow } from '../projection/schema.js';

/**
 * Failure rollups (docs/semantics.md F4): one failure per run that ended `failed`, counted in the
 * bucket of the run's end wall time, by the ending error's category, origin, code and root cause's
 * code, and the run's flow, at the error rollups' three grains (minute, hour, day). A window is
 * answered as error counts are (`planWindow`): whole buckets from these tables and the partial
 * minutes at its edges from the runs themselves (`runs_failed_ended`), so in any window failures
 * equal the runs that ended failed there.
 */

export const FAILURE_ROLLUP_TABLE: Record<Grain, string> = {
  minute: 'failure_rollups',
  hour: 'failure_rollups_hour',
  day: 'failure_rollups_day',
};

/** The columns of a failure rollup's key, in its primary key's order. */
export const FAILURE_KEY = ['bucket', 'category', 'origin', 'code', 'root_code', 'flow'] as const;

/** One failed run, as the rollups count it. */
export interface Failure {
  /** The run's end wall time. */
  wall: number;
  category: string;
  origin: string;
  code: string;
  rootCode: string;
  flow: string;
}

/** The failure a run row stands for: one when it ended failed, else null. */
export function failureOf(
  run: Pick<RunRow, 'status' | 'endedWall' | 'endingCategory' | 'endingOrigin' | 'endingCode' | 'endingRootCode' | 'flow'>,
): Failure | null {
  if (run.status !== 'failed' || run.endedWall === null || run.endingCode === null) return null;
  return {
    wall: run.endedWall,
    category: run.endingCategory ?? '',
    origin: run.endingOrigin ?? '',
    code: run.endingCode,
    rootCode: run.endingRootCode ?? run.endingCode,
    flow: run.flow,
  };
}

export interface FailureEntry {
  bucket: number;
  category: string;
  origin: string;
  code: string;
  rootCode: string;
  flow: string;
  count: number;
}

const SEP = '\u0000';

/** Signed failure-rollup changes of a batch (or of a prune), summed per key and grain. */
export class FailureDeltas {
  private readonly grains: Record<Grain, Map<string, FailureEntry>> = { minute: new Map(), hour: new Map(), day: new Map() };

  get size(): number {
    return this.grains.minute.size;
  }

  add(failure: Failure, sign: number): void {
    for (const grain of GRAINS) {
      const bucket = floorTo(failure.wall, GRAIN_MS[grain]);
      const key = `${bucket}${SEP}${failure.category}${SEP}${failure.origin}${SEP}${failure.code}${SEP}${failure.rootCode}${SEP}${failure.flow}`;
      const map = this.grains[grain];
      const entry = map.get(key);
      if (entry) entry.count += sign;
      else
        map.set(key, {
          bucket,
          category: failure.category,
          origin: failure.origin,
          code: failure.code,
          rootCode: failure.rootCode,
          flow: failure.flow,
          count: sign,
        });
    }
  }

  /** The grain's non-zero changes. */
  entries(grain: Grain): FailureEntry[] {
    return [...this.grains[grain].values()].filter((e) => e.count !== 0);
  }
}

/** A failure entry as the columns of FAILURE_KEY followed by its count. */
export function failureParams(e: FailureEntry): unknown[] {
  return [e.bucket, e.category, e.origin, e.code, e.rootCode, e.flow, e.count];
}
