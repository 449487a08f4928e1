/**
 * A step's events (a step is the frontier of sessions every thread is parked on): its frontier,
 * the channel writes it commits in ordinal order, its checkpoint, its end.
 */
export type StepEventBody =
  | { type: 'stepStarted'; step: number; frontier: { ordinal: number; taskId: string; name: string }[] }
  | { type: 'writeApplied'; step: number; channel: string; ordinal: number | null; value: unknown }
  | {
      type: 'checkpointSaved';
      step: number;
      /**
       * With `delta`: the channels this step changed, at their new values; the state after the
       * step is the previous checkpoint's with these laid over it. Without it (the first
       * checkpoint of a resumed run, and every checkpoint of journals from before deltas): the
       * whole state. So a journal grows with what a run produced, not with steps × state.
       */
      channels: Record<string, unknown>;
      delta?: boolean;
    }
  | { type: 'stepFinished'; step: number };
