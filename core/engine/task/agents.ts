import { NO_RETRY, type RetryPolicy } from '../../base/errors/retry.js';
import type { AgentSpec, FlowPlan, RuntimeKind, SessionSpec } from '../../flow/plan/plan.js';

const builtin = (name: string, runtime: RuntimeKind): AgentSpec => ({
  name,
  runtime,
  command: null,
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
});

const BUILTINS: Record<string, AgentSpec> = {
  fake: builtin('fake', 'fake'),
  noop: builtin('noop', 'noop'),
  'claude-code': builtin('claude-code', 'claude-code'),
  'codex-cli': builtin('codex-cli', 'codex-cli'),
};

/** A flow's own agents shadow the built-in presets of the same name. */
export function resolveAgent(plan: FlowPlan, name: string): AgentSpec | null {
  return plan.agents.get(name) ?? BUILTINS[name] ?? null;
}

/**
 * The retry policy a session runs with: its own when it sets one, else its agent's — the agent
 * it names, or the run's default agent (`--agent`) for a session that names none — else one attempt.
 */
export function retryPolicyFor(spec: SessionSpec, agent: AgentSpec | null): RetryPolicy {
  if (spec.retryExplicit) return spec.retry;
  return agent?.retry ?? NO_RETRY;
}
