import { NO_RETRY, type RetryPolicy } from '../../base/errors/retry.js';
import type { Diagnostic, Position, Program } from '../syntax/ast.js';
import { sortDiagnostics } from '../syntax/diagnostics.js';
import { RuntimeKind, type AgentSpec, type CheckResult, type FlowPlan, type SessionSpec } from '../plan/plan.js';
import { boundDiagnostics } from '../syntax/source.js';

/**
 * One retry owner per failure class (rule 20, docs/semantics.md F10). The engine retries
 * a session's failed attempts (`retry:`); an agent CLI may also retry failed API requests inside
 * one attempt. Both at once multiply: `retry: 3` over Claude Code's own 10 is up to 44 requests
 * for one rate limit, and the journal shows 4. So:
 * - an agent that turns Claude Code's own retries on (`env: ["CLAUDE_CODE_MAX_RETRIES=10"]`)
 *   while its sessions retry is an error, unless the flow turns the engine's retries off for
 *   them (`retry: 0`); the claude-code preset sets the variable to 0 itself;
 * - Codex retries requests and streams inside an attempt and cannot be told not to for its
 *   built-in provider (docs/presets.md): a codex-cli session that retries is a warning, since
 *   nothing in the flow can make it one owner.
 * Which retries belong to which CLI, and the sources, are in docs/presets.md.
 */

/** Claude Code's environment variable for its own API retries (10 by default; 0 turns them off). */
export const CLAUDE_CODE_RETRIES_ENV = 'CLAUDE_CODE_MAX_RETRIES';

const AT_MOST_ONE = 'at most one layer may retry a given failure class';

/**
 * What the pinned Codex made for one turn its built-in `openai` provider got 429 for, with its
 * defaults (the recording `codex-cli/rate-limit…built-in-provider`, which a test reads): WebSocket
 * handshakes first, then HTTPS requests after "Falling back from WebSockets to HTTPS transport".
 */
export const CODEX_BUILT_IN_RATE_LIMIT = { version: '0.171.0', websocket: 7, https: 6 } as const;

/** The requests of that turn, as the check's warning and the preset's retry note quote them. */
export function codexBuiltInRequests(): string {
  const r = CODEX_BUILT_IN_RATE_LIMIT;
  return `Codex ${r.version}: ${r.websocket + r.https} requests for one turn answered 429, ${r.websocket} WebSocket tries then ${r.https} over HTTPS`;
}

/** What an agent's CLI retries inside one attempt, when it does. */
type InnerRetries = { kind: 'enabled'; value: string; where: Position | null } | { kind: 'unstoppable' };

function innerRetriesOf(agent: AgentSpec, program: Program): InnerRetries | null {
  const value = agent.env[CLAUDE_CODE_RETRIES_ENV];
  if (value !== undefined && !(value.trim() !== '' && Number(value.trim()) === 0)) {
    return { kind: 'enabled', value, where: envEntryPosition(program, agent.name) };
  }
  if (agent.runtime === RuntimeKind.codexCli) return { kind: 'unstoppable' };
  return null;
}

/** Where an agent declaration's env list sets Claude Code's retries (its first such entry). */
function envEntryPosition(program: Program, agentName: string): Position | null {
  const decl = program.agents.find((a) => a.name === agentName);
  const env = decl?.properties.find((p) => p.name === 'env')?.value;
  if (!env) return null;
  for (const item of env.kind === 'list' ? env.items : [env]) {
    if (item.kind !== 'string') continue;
    const text = item.value.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    if (text.startsWith(`${CLAUDE_CODE_RETRIES_ENV}=`)) return item.pos;
  }
  return null;
}

/** A built-in preset's spec as the checker needs it (the engine has the full ones). */
function builtinAgent(name: string): AgentSpec | null {
  const runtime = (Object.values(RuntimeKind) as string[]).includes(name) && name !== RuntimeKind.command ? (name as RuntimeKind) : null;
  if (runtime === null) return null;
  return {
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
  };
}

function agentNamed(plan: FlowPlan, name: string): AgentSpec | null {
  return plan.agents.get(name) ?? builtinAgent(name);
}

const at = (pos: Position): string => `${pos.line}:${pos.column}`;

/** Names the two owners: the engine with its policy, and the CLI with the setting that turns it on. */
function ownersMessage(whose: string, engine: string, agent: AgentSpec, inner: InnerRetries, fix: string): string {
  if (inner.kind === 'unstoppable') {
    return (
      `two layers retry ${whose}: the engine (${engine}) and codex-cli itself, which retries inside each attempt with the built-in openai provider ` +
      `and cannot be told not to there (${codexBuiltInRequests()}); the preset turns a custom provider's retries off, but the check cannot see ` +
      `which provider config.toml selects: one engine attempt may hide several requests (docs/presets.md, "Retries inside one attempt")`
    );
  }
  const where = inner.where ? ` at ${at(inner.where)}` : '';
  return (
    `two layers retry ${whose}: the engine (${engine}) and Claude Code itself (agent "${agent.name}" sets ${CLAUDE_CODE_RETRIES_ENV}=${inner.value}${where}); ` +
    `${AT_MOST_ONE}. Remove that env entry (the claude-code preset sets it to 0), or ${fix}`
  );
}

/**
 * The sessions where two layers would retry, as diagnostics: at the session when it sets its own
 * `retry:`, once at the agent's declaration when its sessions retry by the agent's policy.
 * Without `defaultAgent`: the sessions that name their agent (what `check` can know). With it:
 * the sessions that name none, as a run with that default agent runs them (the service asks
 * before it starts one, for `--agent` / `startRun({agent})`).
 */
export function retryOwnerDiagnostics(plan: FlowPlan, defaultAgent: string | null = null): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const reportedAgents = new Set<string>();
  const report = (pos: Position, message: string, severity: Diagnostic['severity']): void => {
    diagnostics.push({ file: plan.file, line: pos.line, column: pos.column, message, severity });
  };
  for (const session of plan.sessions) {
    const name = defaultAgent === null ? session.agent : session.agent === null ? defaultAgent : null;
    if (name === null) continue;
    const agent = agentNamed(plan, name);
    if (agent === null) continue;
    const policy = effectivePolicy(session, agent);
    if (!(policy.retries > 0)) continue;
    const inner = innerRetriesOf(agent, plan.program);
    if (inner === null) continue;
    const severity = inner.kind === 'enabled' ? 'error' : 'warning';
    const fromAgent = !session.retryExplicit && agent.pos !== null;
    if (fromAgent) {
      if (reportedAgents.has(agent.name)) continue;
      reportedAgents.add(agent.name);
      const whose = `the sessions of agent "${agent.name}"`;
      report(agent.pos!, ownersMessage(whose, `the agent's retry: ${policy.retries}`, agent, inner, 'set retry: 0 on the agent or on its sessions'), severity);
    } else {
      const whose = `session #${session.ordinal}${session.agent === null ? ` (run with default agent "${name}")` : ''}`;
      const engine = `retry: ${policy.retries}${session.retryExplicit ? '' : ` of agent "${agent.name}"`}`;
      report(session.pos, ownersMessage(whose, engine, agent, inner, "turn the engine's retries off for this session with retry: 0"), severity);
    }
  }
  return diagnostics;
}

/** The policy the engine runs a session with (engine/task/agents.ts `retryPolicyFor`). */
function effectivePolicy(session: SessionSpec, agent: AgentSpec): RetryPolicy {
  if (session.retryExplicit) return session.retry;
  return agent.retry ?? NO_RETRY;
}

/**
 * A check's result for a run with this default agent: the sessions that name no agent are
 * judged as they will run (a flow agent given as `--agent` may turn Claude Code's retries on).
 * The service asks this before it starts a run, so a run never starts with two retry owners.
 */
export function checkedForDefaultAgent(checked: CheckResult, defaultAgent: string | null): CheckResult {
  if (checked.plan === null || defaultAgent === null) return checked;
  const extra = retryOwnerDiagnostics(checked.plan, defaultAgent);
  if (extra.length === 0) return checked;
  const errors = extra.filter((d) => d.severity === 'error').length;
  return {
    ok: checked.ok && errors === 0,
    diagnostics: boundDiagnostics(sortDiagnostics([...checked.diagnostics, ...extra])),
    errorCount: checked.errorCount + errors,
    plan: checked.plan,
  };
}
