import { HivewatchError, isCancelled } from '../../base/errors/hivewatch-error.js';
import type { AttemptProcessReport, AttemptResult } from '../../runtimes/runtime.js';
import type { TaskEnv, TaskRef } from './task-env.js';

/**
 * One attempt: the runtime's call, with agent work around it when the task has a workspace (a
 * clean worktree before, an inspection after). It never throws: whatever goes wrong is the
 * attempt's result, and a runtime that throws or reports a cancel nobody asked for broke an
 * invariant, which is a system error.
 */

/** One attempt as it ended: the result after agent work judged it, and what the runtime answered before that. */
export interface AttemptEnd {
  result: AttemptResult;
  answered: AttemptResult | null;
  commit: string | null;
  durationMs: number;
}

/** Runs one attempt (agent work around it when the task has a workspace); never throws. */
export async function runAttempt(env: TaskEnv, ref: TaskRef, attempt: number, prompt: string, startedEpoch: number, started: number): Promise<AttemptEnd> {
  let result: AttemptResult;
  let commit: string | null = null;
  // What the runtime answered, before agent work judged it: the inspector shows both.
  let answered: AttemptResult | null = null;
  try {
    const cwd = env.work ? await env.work.prepare(attempt, env.signal) : null;
    result = await env.runtime.execute(
      {
        runId: env.runId,
        taskId: env.taskId,
        ordinal: env.ordinal,
        attempt,
        prompt,
        agent: env.agent,
        simulate: env.spec.simulate,
        timeoutMs: env.spec.timeoutMs ?? env.agent.timeoutMs,
        context: env.context(),
        ...(cwd !== null ? { cwd } : {}),
        reportProcess: (report) => reportProcess(env, ref, attempt, report),
        ...(env.killNow ? { killNow: env.killNow } : {}),
      },
      env.signal,
    );
    answered = result;
    if (result.kind === 'succeeded' && env.work && !env.signal.aborted && env.epoch() === startedEpoch) {
      const inspection = await env.work.inspect(attempt, result.output, env.signal);
      if (env.signal.aborted) result = { kind: 'cancelled' };
      else if (inspection.ok) commit = inspection.commit;
      else result = { kind: 'failed', error: inspection.error };
    }
  } catch (thrown) {
    // A cancellation thrown here is no failure of agent work: like any other throw it is a broken invariant.
    if (thrown instanceof HivewatchError && !isCancelled(thrown)) {
      // Agent work failing around the attempt (a worktree, setup, a commit) fails the attempt.
      result = env.signal.aborted ? { kind: 'cancelled' } : { kind: 'failed', error: thrown };
    } else {
      // Runtimes must not throw; one that does broke an invariant, which is a system error.
      result = {
        kind: 'failed',
        error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
          message: `runtime ${env.runtime.name} threw instead of returning a result: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
        }),
      };
    }
  }
  return { result, answered, commit, durationMs: env.clock.now() - started };
}

/** Only a stop the engine asked for ends an attempt as cancelled; anything else is a bug of the runtime. */
export function unaskedCancel(env: TaskEnv): AttemptResult {
  return {
    kind: 'failed',
    error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
      message: `runtime ${env.runtime.name} reported the attempt cancelled although nothing cancelled it`,
    }),
  };
}

function reportProcess(env: TaskEnv, ref: TaskRef, attempt: number, report: AttemptProcessReport): void {
  if (report.kind === 'started') {
    const telemetry = report.telemetry !== undefined ? { telemetry: report.telemetry } : {};
    env.emit({ type: 'attemptProcess', ...ref, attempt, pid: report.pid, startTime: report.startTime, hostname: report.hostname, ...telemetry });
    // The write itself is synchronous; a failure is the next flush's to report (it retries).
    env.flush?.().catch(() => undefined);
    return;
  }
  env.emit({
    type: 'attemptProcessEscaped',
    ...ref,
    attempt,
    pid: report.pid,
    message: `a process outside the attempt's process group ${report.pid} (started with setsid?) kept its output open after the group ended; it may still be running and was not stopped`,
  });
}

/** The runtime's argv for the record; a runtime failing to say is not the attempt's failure (execute reports that). */
export function commandLineOf(env: TaskEnv, prompt: string): readonly string[] | null {
  try {
    return env.runtime.commandLine?.(env.agent, prompt) ?? null;
  } catch {
    return null;
  }
}
