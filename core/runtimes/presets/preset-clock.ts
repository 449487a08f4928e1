import type { AttemptRequest } from '../runtime.js';
import type { ResetClock } from '../../base/errors/usage-limit.js';

/**
 * The clock a preset reads reset times against. Injectable so tests (and virtual-clock runs)
 * resolve "try again in 2 hours" against the engine's time; the real clock is read here, at the
 * runtime's edge, and never inside parsing.
 */
export interface PresetClockOptions {
  /** Epoch ms now; default the real clock. */
  now?: (() => number) | undefined;
  /** The zone of a reset time printed without one; default this machine's zone. */
  timeZone?: string | undefined;
}

/** What an output reader knows besides the output: the agent, and the clock time it finished. */
export interface ReadContext extends ResetClock {
  agentName?: string | undefined;
}

export function presetClock(options: PresetClockOptions, request: Pick<AttemptRequest, 'agent'>): ReadContext {
  return {
    now: (options.now ?? Date.now)(),
    timeZone: options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    agentName: request.agent.name,
  };
}
