import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import {
  commitWrites,
  emptyChannelState,
  replaceReducer,
  snapshotChannels,
  type ChannelDef,
  type ChannelState,
  type Reducer,
  type UpdatePolicy,
} from '../interpret/channels.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { Frame } from '../interpret/frames.js';
import { WriteLog, type LoggedWrite } from '../interpret/write-log.js';

/**
 * A run's channels: what is committed, the writes made since the last commit, and the
 * checkpoints that journal them. A commit is all or nothing (rule 5) and, for a live step,
 * journals `writeApplied`…, `checkpointSaved` and `stepFinished` in one synchronous stretch.
 */
export class RunChannels {
  private readonly defs = new Map<string, ChannelDef>();
  private state: ChannelState = emptyChannelState();
  private readonly log = new WriteLog();
  /** Whether a checkpoint was journaled yet: a resumed run's first one holds the whole state. */
  private checkpointed = false;

  constructor(
    private readonly reducers: Readonly<Record<string, Reducer>>,
    /** The checkpoint a resumed run continues after (0 when none): its first checkpoint cannot be a delta. */
    private readonly resumedThrough: number,
  ) {}

  declare(key: string, name: string, scope: 'global' | 'branch', policy: UpdatePolicy): void {
    if (this.defs.has(key)) return;
    this.defs.set(key, { key, name, scope, policy, reducer: this.reducers[name] ?? replaceReducer });
  }

  stage(write: LoggedWrite): void {
    this.log.stage(write);
  }

  read(key: string, reader: readonly Frame[]): unknown {
    return this.log.read(key, reader, this.state, this.defs);
  }

  /** Writes made since the last commit. */
  get uncommitted(): number {
    return this.log.size;
  }

  discardUncommitted(): void {
    this.log.clear();
  }

  snapshot(): Record<string, unknown> {
    return snapshotChannels(this.state);
  }

  /**
   * Applies the writes made since the last commit; returns the error that rejects them all, or
   * null. With `emit` (a live step) journals the writes, then `beforeCheckpoint`'s events, then
   * the checkpoint and `stepFinished`.
   */
  commit(step: number, emit: ((body: HivewatchEventBody) => void) | null, beforeCheckpoint: () => void = () => undefined): HivewatchError | null {
    const result = commitWrites(this.state, this.log.take(), this.defs);
    if (!result.ok) return result.error;
    this.state = result.state;
    if (emit === null) return null;
    for (const write of result.applied) emit({ type: 'writeApplied', step, channel: write.key, ordinal: write.ordinal, value: write.value });
    beforeCheckpoint();
    // Only what this step changed, unless the journal has no earlier state to lay it over.
    const whole = !this.checkpointed && this.resumedThrough > 0;
    const channels = whole ? snapshotChannels(this.state) : changedChannels(this.state, result.applied);
    emit({ type: 'checkpointSaved', step, channels, ...(whole ? {} : { delta: true }) });
    this.checkpointed = true;
    emit({ type: 'stepFinished', step });
    return null;
  }
}

function changedChannels(state: ChannelState, applied: readonly { key: string }[]): Record<string, unknown> {
  const keys = [...new Set(applied.map((w) => w.key))].sort();
  return Object.fromEntries(keys.map((key) => [key, state.values.get(key)]));
}
