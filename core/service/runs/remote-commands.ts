import type { FlowRun } from '../../engine/run/run.js';
import { isTerminal } from '../../common/run-statuses.js';
import { RunCommandKind, type HivewatchStore, type RunCommand } from '../../store/index.js';
import type { CommandAck } from '../api.js';

/**
 * Run commands across processes. The window's process journals a cancel or
 * skipBackoff for a run another live process hosts; that host applies it on its next change
 * probe through its FlowRun, with the command's id, so the journal acknowledges it exactly as a
 * local command (`cancelRequested` / `backoffSkipped` carry the id; rules 9–12 unchanged), and
 * records the outcome, which the caller waits for (bounded). A run whose host is gone is
 * recovered (interrupted) instead.
 */

/** How long a caller waits for the hosting process's answer before saying it is on its way. */
const DEFAULT_ACK_TIMEOUT_MS = 2_000;
const ACK_POLL_MS = 10;

export type RemoteCommand =
  | { kind: typeof RunCommandKind.cancel; commandId: string; runId: string; reason?: string | undefined }
  | { kind: typeof RunCommandKind.skipBackoff; commandId: string; runId: string; taskId: string };

/** What the host says about a command it applied (the same words as a local command). */
function applyCommand(run: FlowRun, command: Pick<RunCommand, 'kind' | 'commandId' | 'runId' | 'taskId' | 'reason'>): CommandAck {
  const { commandId, runId } = command;
  if (command.kind === RunCommandKind.cancel) {
    const before = run.status;
    const ack = run.cancel({ commandId, ...(command.reason !== null ? { reason: command.reason } : {}) });
    if (ack.accepted) return { commandId, accepted: true };
    return {
      commandId,
      accepted: false,
      message: before === 'cancelling' ? `run ${runId} is already cancelling` : `run ${runId} is ${before}; nothing to cancel`,
    };
  }
  const taskId = command.taskId ?? '';
  return run.skipBackoff(taskId, commandId)
    ? { commandId, accepted: true }
    : { commandId, accepted: false, message: `task ${taskId} of run ${runId} is not waiting in backoff` };
}

/**
 * The host's side: applies the pending commands of the runs it executes and records each
 * outcome. `flush` makes the acknowledging events durable before the outcome is recorded, so a
 * caller that sees the outcome finds the events in the journal.
 */
export async function applyPendingCommands(store: HivewatchStore, hosted: ReadonlyMap<string, FlowRun>, flush: () => Promise<void>): Promise<number> {
  const pending = await store.pendingCommands([...hosted.keys()]);
  if (pending.length === 0) return 0;
  const outcomes: CommandAck[] = [];
  for (const command of pending) {
    const run = hosted.get(command.runId);
    if (run) outcomes.push(applyCommand(run, command));
  }
  await flush();
  for (const ack of outcomes) await store.completeCommand(ack.commandId, { accepted: ack.accepted, message: ack.message ?? null });
  return outcomes.length;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * The caller's side: journals the command for the run's host and waits (at most `timeoutMs`)
 * for its outcome. A host that is gone gets the run recovered; a run that ended meanwhile gets
 * the command refused; a host that does not answer in time leaves the command pending (it is
 * applied when the host gets to it) and the ack says so. Never hangs.
 */
export async function deliverCommand(store: HivewatchStore, command: RemoteCommand, timeoutMs = DEFAULT_ACK_TIMEOUT_MS): Promise<CommandAck> {
  const { commandId, runId } = command;
  const gone = await recoverIfHostGone(store, command);
  if (gone) return gone;
  await store.enqueueCommand({
    commandId,
    runId,
    kind: command.kind,
    taskId: command.kind === RunCommandKind.skipBackoff ? command.taskId : null,
    reason: command.kind === RunCommandKind.cancel ? (command.reason ?? null) : null,
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await store.getCommand(commandId);
    if (state && state.state === 'done') {
      return { commandId, accepted: state.accepted === true, ...(state.message !== null ? { message: state.message } : {}) };
    }
    const status = (await store.getRunRow(runId))?.status ?? null;
    if (status === null || isTerminal(status)) {
      // The host journals its acknowledging event (carrying the command id) before it records
      // the outcome: a run that ended because of this command has that event already.
      const applied = (await store.getEvents(runId, 0, 100_000)).some((e) => (e as { commandId?: unknown }).commandId === commandId);
      const outcome = applied
        ? { accepted: true, message: null }
        : { accepted: false, message: `run ${runId} is ${status ?? 'gone'}; nothing to ${command.kind === RunCommandKind.cancel ? 'cancel' : 'skip'}` };
      // Only if the host did not answer first (it records outcomes the same way).
      if (await store.completeCommand(commandId, outcome))
        return { commandId, accepted: outcome.accepted, ...(outcome.message !== null ? { message: outcome.message } : {}) };
      continue;
    }
    const recovered = await recoverIfHostGone(store, command);
    if (recovered) {
      await store.completeCommand(commandId, { accepted: recovered.accepted, message: recovered.message ?? null });
      return recovered;
    }
    if (Date.now() >= deadline) {
      const host = await store.runHost(runId);
      return {
        commandId,
        accepted: true,
        message: `delivered to the process hosting run ${runId}${host ? ` (pid ${host.pid})` : ''}; it has not answered yet`,
      };
    }
    await sleep(ACK_POLL_MS);
  }
}

/** Recovers the run when no live process hosts it; the ack to return then, else null. */
export async function recoverIfHostGone(store: HivewatchStore, command: RemoteCommand): Promise<CommandAck | null> {
  const { commandId, runId } = command;
  const host = await store.runHost(runId);
  if (host?.alive) return null;
  const recovered = await store.recoverInterrupted({ runId });
  if (recovered.length === 0) return null;
  const who = host ? `its host process (pid ${host.pid}) is gone` : 'no live process hosts it';
  return command.kind === RunCommandKind.cancel
    ? { commandId, accepted: true, message: `run ${runId} was not cancelled but interrupted: ${who}` }
    : { commandId, accepted: false, message: `run ${runId} was interrupted: ${who}` };
}
