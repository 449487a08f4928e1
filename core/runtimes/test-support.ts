import type { AgentSpec } from '../flow/plan.js';
import { templateFromText } from './command-line.js';
import type { AttemptRequest } from './runtime.js';

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
