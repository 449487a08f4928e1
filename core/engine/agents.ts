import type { AgentSpec, FlowPlan, RuntimeKind } from '../flow/plan.js';

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
