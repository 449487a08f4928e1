import { concurrentThreads, type ChannelDef, type ChannelState, type ForkPoint, type StagedWrite } from './channels.js';
import { insideDeadParallel, type Frame } from './frames.js';

export interface LoggedWrite extends Omit<StagedWrite, 'forks'> {
  /** The handlers around the write: one made inside a parallel that died is discarded. */
  frames: readonly Frame[];
}

function forksOf(frames: readonly Frame[]): ForkPoint[] {
  return frames.flatMap((f) => (f.kind === 'parallel' ? [{ instance: f.state, branch: f.branch }] : []));
}

/**
 * The writes made since the last commit, in the order they were made. A thread reads its own
 * program order: the committed state plus the uncommitted writes of itself, of the threads it
 * forked from and of the branches it joined (`let x = "a"` then `session "{x}"` sees "a" before
 * any commit). A sibling's uncommitted write stays invisible until the commit, so what a branch
 * reads never depends on how its siblings' work interleaved.
 */
export class WriteLog {
  private writes: LoggedWrite[] = [];

  stage(write: LoggedWrite): void {
    this.writes.push(write);
  }

  get size(): number {
    return this.writes.length;
  }

  read(key: string, reader: readonly Frame[], committed: ChannelState, defs: ReadonlyMap<string, ChannelDef>): unknown {
    const readerForks = forksOf(reader);
    let value = committed.values.get(key);
    const reducer = defs.get(key)?.reducer;
    for (const write of this.writes) {
      if (write.key !== key || concurrentThreads(forksOf(write.frames), readerForks) || insideDeadParallel(write.frames)) continue;
      try {
        value = reducer ? reducer(value, write.value) : write.value;
      } catch {
        // The commit reports a throwing reducer (rule 5); a read before it sees the raw write.
        value = write.value;
      }
    }
    return value;
  }

  /** Everything to commit, in program order; writes inside dead parallels are dropped. Empties the log. */
  take(): StagedWrite[] {
    const live = this.writes.filter((w) => !insideDeadParallel(w.frames));
    this.writes = [];
    return live.map(({ key, value, ordinal, thread, pos, frames }) => ({ key, value, ordinal, thread, pos, forks: forksOf(frames) }));
  }

  clear(): void {
    this.writes = [];
  }
}
