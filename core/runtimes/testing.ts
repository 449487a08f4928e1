import type { RuntimeObservation } from '../base/errors/classify.js';
import type { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { AgentSpec } from '../flow/plan/plan.js';
import { templateFromText } from './command-line.js';
import type { AttemptRequest, AttemptResult } from './runtime.js';

/**
 * Builders for runtime tests (not a test file itself: vitest only collects `*.test.ts`).
 * Kept out of the test files so each of them states only what its case changes.
 */

export function agent(overrides: Partial<Omit<AgentSpec, 'command'>> & { command?: string | AgentSpec['command'] } = {}): AgentSpec {
  const { command, ...rest } = overrides;
  return {
    name: 'tester',
    runtime: 'command',
    command: typeof command === 'string' ? templateFromText(command) : (command ?? null),
    shell: false,
    timeoutMs: null,
    retry: null,
    model: null,
    cwd: null,
    env: {},
    secrets: [],
    workspace: null,
    setup: null,
    pos: null,
    ...rest,
  };
}

export function attempt(overrides: Partial<AttemptRequest> = {}): AttemptRequest {
  return {
    runId: 'run-1',
    taskId: 'task-1',
    ordinal: 0,
    attempt: 1,
    prompt: 'Write the plan',
    agent: agent(),
    simulate: null,
    timeoutMs: null,
    context: {},
    ...overrides,
  };
}

/** A never-aborted signal. */
export const NEVER = new AbortController().signal;

/** What a process runtime observed of a finished attempt (exit 0 unless overridden). */
export function observed(runtimeName: string, stdout: string, overrides: Partial<RuntimeObservation> = {}): RuntimeObservation {
  return { runtimeName, exitCode: 0, signal: null, timedOut: false, stdout, stderr: '', durationMs: 10, ...overrides };
}

/** The error of a result that must be a failure. */
export function failure(result: AttemptResult): HivewatchError {
  if (result.kind !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}
