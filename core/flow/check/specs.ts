import type { RetryPolicy } from '../../base/errors/retry.js';
import type { AgentDecl, SessionStmt, Template } from '../syntax/ast.js';
import { BUILTIN_AGENTS, type AgentSpec, type RuntimeKind } from '../plan/plan.js';
import {
  AGENT_PROPERTIES,
  SESSION_PROPERTIES,
  indexProperties,
  literalText,
  readBoolean,
  readContext,
  readDuration,
  readEnv,
  readRetryPolicy,
  readRuntime,
  readSecrets,
  readSimulate,
  readTemplate,
  type NameRef,
  type Report,
} from './properties.js';
import { describeTemplate, renderTemplate } from '../syntax/template.js';
import type { SessionWork } from '../plan/agent-work.js';
import { readCommand, readSessionWork, readWorkspace } from './read-agent-work.js';
import { agentCommandProblems } from '../plan/command-safety.js';

/** From declarations to the specs of FlowPlan: agents, and the per-session properties. */

const SESSION_NAME_MAX = 60;

export function buildAgentSpec(decl: AgentDecl, report: Report): AgentSpec {
  const props = indexProperties(decl.properties, AGENT_PROPERTIES, `agent "${decl.name}"`, report);
  const value = (name: string) => props.get(name)?.value;

  const runtimeValue = value('runtime');
  const runtime: RuntimeKind | null = runtimeValue ? readRuntime(runtimeValue, report) : 'command';
  const commandValue = value('command');
  const command: Template | null = commandValue ? readTemplate('command', commandValue, report) : null;
  if (runtime === 'command' && !commandValue) {
    // The default runtime runs a command line; without one no attempt could ever start.
    report(
      `agent "${decl.name}" uses the command runtime but has no command: add command: "..." or set runtime to one of fake, claude-code, codex-cli, noop`,
      decl.pos,
    );
  }
  const shellValue = value('shell');
  const timeoutValue = value('timeout');
  const modelValue = value('model');
  const cwdValue = value('cwd');
  const envValue = value('env');
  const secretsValue = value('secrets');
  const workspaceValue = value('workspace');
  const setupValue = value('setup');
  const shell = (shellValue && readBoolean('shell', shellValue, report)) ?? false;
  const env = envValue ? readEnv(envValue, report) : {};
  // No placeholder where the command would run its value as code.
  for (const problem of agentCommandProblems({ runtime: runtime ?? 'command', command, shell })) report(problem.message, problem.pos);
  return {
    name: decl.name,
    runtime: runtime ?? 'command',
    command,
    shell,
    timeoutMs: (timeoutValue && readDuration('timeout', timeoutValue, report)) ?? null,
    retry: readRetryPolicy(props, report),
    model: modelValue ? literalText('model', modelValue, 'a model name', report) : null,
    cwd: cwdValue ? literalText('cwd', cwdValue, 'a "path"', report) : null,
    env,
    secrets: secretsValue ? readSecrets(secretsValue, env, report) : [],
    workspace: workspaceValue ? readWorkspace(workspaceValue, report) : null,
    setup: setupValue ? readCommand('setup', setupValue, report) : null,
    pos: decl.pos,
  };
}

export function isKnownAgent(name: string, declared: ReadonlyMap<string, AgentSpec>): boolean {
  return declared.has(name) || BUILTIN_AGENTS.includes(name);
}

/** A session's own properties, typed. `prompt` and `agent` were folded into the statement by the parser. */
export interface SessionProperties {
  /** null: the session sets none of retry / backoff / delay / max-delay. */
  retry: RetryPolicy | null;
  timeoutMs: number | null;
  simulate: string | null;
  context: NameRef[];
  work: SessionWork;
}

export function readSessionProperties(stmt: SessionStmt, report: Report): SessionProperties {
  const props = indexProperties(stmt.properties, SESSION_PROPERTIES, 'a session', report);
  const timeout = props.get('timeout')?.value;
  const simulate = props.get('simulate')?.value;
  const context = props.get('context')?.value;
  return {
    retry: readRetryPolicy(props, report),
    timeoutMs: (timeout && readDuration('timeout', timeout, report)) ?? null,
    simulate: simulate ? readSimulate(simulate, report) : null,
    context: context ? readContext(context, report) : [],
    work: readSessionWork(props, report),
  };
}

/** `{feedback}` is empty on a first attempt and says nothing of the task: names leave it out. */
function withoutFeedback(prompt: Template | null): Template | null {
  return prompt ? { ...prompt, parts: prompt.parts.filter((p) => !(p.kind === 'ref' && p.path.length === 1 && p.path[0] === 'feedback')) } : null;
}

/** Text on one line, cut to a name's length. */
function asName(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= SESSION_NAME_MAX ? line : `${line.slice(0, SESSION_NAME_MAX - 1)}…`;
}

/** The label of a session in the flow: its prompt as written on one line, shortened; else its ordinal. */
export function sessionName(prompt: Template | null, ordinal: number): string {
  const named = withoutFeedback(prompt);
  const text = named ? asName(describeTemplate(named)) : '';
  return text === '' ? `session #${ordinal}` : text;
}

/**
 * The name of a session's task in a run: its prompt as its attempts run it, the template filled
 * in with the run's values (`{feedback}` left out), on one line and shortened like
 * `sessionName`, which it is for a prompt with nothing to fill in. `redact` runs on the whole
 * text before the cut, so no part of a secret survives at the cut; an empty rendering falls back
 * to the written name.
 */
export function sessionTitle(prompt: Template | null, ordinal: number, lookup: (path: readonly string[]) => unknown, redact: (text: string) => string): string {
  const named = withoutFeedback(prompt);
  const text = named ? asName(redact(renderTemplate(named, lookup))) : '';
  return text === '' ? sessionName(prompt, ordinal) : text;
}
