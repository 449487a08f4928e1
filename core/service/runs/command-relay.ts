import type { FlowRun } from '../../engine/run/run.js';
import type { CommandAck } from '../api.js';
import { ACTIVE_STATUSES } from '../api.js';
import { newCommandId } from './hosted.js';
import { deliverCommand, type RemoteCommand } from './remote-commands.js';
import { parseInput } from '../schemas.js';
import { externalRefusal, guard, isExternal, runRowOr404, type ServiceContext } from '../service-context.js';
import type { HivewatchService } from '../service-types.js';
import { isStoppedExternalSession, launchingAttemptOf, stopWatchingSession } from '../../otel/session/stop-watching.js';

/**
 * The command relay: a command for a run goes to whoever executes it. A run this process hosts
 * takes it through its FlowRun; a run another live process hosts gets it through the journal
 * (remote-commands.ts), whose host answers; an external run (seen through its telemetry) or an
 * ended run gets a refusal without anything journaled. `cancelRun` and `skipBackoff` differ only
 * in the command and their words, so both go through `relay`.
 */

interface CommandRoute {
  runId: string;
  /** The command for another process, given its id. */
  remote: (commandId: string) => RemoteCommand;
  /** Applies the command to the run hosted here. */
  here: (run: FlowRun, commandId: string) => CommandAck;
  /** What an external run's refusal says the operator should do instead. */
  externalWhat: string;
  /** Why an ended run refuses (given its status). */
  ended: (status: string) => string;
}

async function relay(ctx: ServiceContext, route: CommandRoute): Promise<CommandAck> {
  const row = await runRowOr404(ctx.store, route.runId);
  const commandId = newCommandId();
  const live = ctx.runs.get(route.runId);
  if (live) {
    const ack = route.here(live.run, commandId);
    // The command's acknowledgement is journaled before the caller hears of it.
    await ctx.sink.flush();
    return ack;
  }
  if (isExternal(row)) return { commandId, accepted: false, message: externalRefusal(row, route.externalWhat) };
  return (ACTIVE_STATUSES as readonly string[]).includes(row.status)
    ? deliverCommand(ctx.store, route.remote(commandId), ctx.options.commandAckTimeoutMs)
    : { commandId, accepted: false, message: route.ended(row.status) };
}

/** The reason a cancel without one journals for a stopped external session. */
const STOP_WATCHING_REASON = 'cancelled by the operator: Hivewatch stopped watching the session it could not stop';

/**
 * A cancel of an external session stopped by its usage limit or waiting for approval: Hivewatch
 * stops watching it (the run ends cancelled, core/otel/session/stop-watching.ts). A session a Hivewatch
 * attempt sent is refused with the run to cancel instead (cancelling that run stops the agent).
 * Null for every other run, which the relay takes.
 */
async function stopWatchingIfStopped(ctx: ServiceContext, runId: string, reason: string | undefined): Promise<CommandAck | null> {
  const row = await runRowOr404(ctx.store, runId);
  if (!isExternal(row) || !isStoppedExternalSession(row)) return null;
  const commandId = newCommandId();
  const attempt = await launchingAttemptOf(ctx.store, runId);
  if (attempt !== null) {
    return {
      commandId,
      accepted: false,
      message: `run ${runId} is the telemetry of attempt ${attempt.attempt} of task ${attempt.taskId} of run ${attempt.runId}, which Hivewatch started: cancel run ${attempt.runId} to stop its agent`,
    };
  }
  const done = await stopWatchingSession(ctx.store, runId, { commandId, reason: reason ?? STOP_WATCHING_REASON }, Date.now());
  return done ? { commandId, accepted: true } : null;
}

export function commandRelay(ctx: ServiceContext): Pick<HivewatchService, 'cancelRun' | 'skipBackoff'> {
  return {
    cancelRun: (input) =>
      guard(async () => {
        const { runId, reason } = parseInput('cancelRun', input);
        const stopped = await stopWatchingIfStopped(ctx, runId, reason);
        if (stopped) return stopped;
        return relay(ctx, {
          runId,
          remote: (commandId) => ({ kind: 'cancel', commandId, runId, reason }),
          here: (run, commandId) => {
            const before = run.status;
            const ack = run.cancel({ commandId, ...(reason !== undefined ? { reason } : {}) });
            if (ack.accepted) return ack;
            return { ...ack, message: before === 'cancelling' ? `run ${runId} is already cancelling` : `run ${runId} is ${before}; nothing to cancel` };
          },
          externalWhat: 'cancel it: stop the agent where it runs',
          ended: (status) => `run ${runId} is ${status}; nothing to cancel`,
        });
      }),

    skipBackoff: (input) =>
      guard(() => {
        const { runId, taskId } = parseInput('skipBackoff', input);
        return relay(ctx, {
          runId,
          remote: (commandId) => ({ kind: 'skipBackoff', commandId, runId, taskId }),
          here: (run, commandId) =>
            run.skipBackoff(taskId, commandId)
              ? { commandId, accepted: true }
              : { commandId, accepted: false, message: `task ${taskId} of run ${runId} is not waiting in backoff` },
          externalWhat: 'skip its backoff: the agent retries on its own schedule',
          ended: (status) => `run ${runId} is ${status}; it is not executed by this process`,
        });
      }),
  };
}
