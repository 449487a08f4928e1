import type { RetryPolicy } from '../../base/errors/retry.js';
import type { SessionWork, WorkspaceMode } from './agent-work.js';
import type { Diagnostic, Position, Program, Template } from '../syntax/ast.js';

/** Runtimes an agent may name. `claude-code` and `codex-cli` are presets of `command`. */
export const RuntimeKind = {
  command: 'command',
  fake: 'fake',
  claudeCode: 'claude-code',
  codexCli: 'codex-cli',
  noop: 'noop',
} as const;
export type RuntimeKind = (typeof RuntimeKind)[keyof typeof RuntimeKind];
export const RUNTIME_KINDS: readonly RuntimeKind[] = Object.values(RuntimeKind);

/** Agents that exist without being declared; `--agent` and `HIVEWATCH_AGENT` may name them. */
export const BUILTIN_AGENTS: readonly string[] = ['fake', 'claude-code', 'codex-cli', 'noop'];

/** A runtime profile (`agent name:` block, or a built-in preset). */
export interface AgentSpec {
  name: string;
  runtime: RuntimeKind;
  /** The command line template: a value only where core/flow/plan/command-safety.ts allows it, as one argument. */
  command: Template | null;
  /** Run `command` through `/bin/sh -c` instead of splitting it into argv. */
  shell: boolean;
  timeoutMs: number | null;
  /** Applies to sessions of this agent that set no retry of their own. */
  retry: RetryPolicy | null;
  model: string | null;
  cwd: string | null;
  env: Record<string, string>;
  /** Names of `env:` variables declared secret (`secrets:`): redacted whatever their names say. */
  secrets: readonly string[];
  /** The default workspace of its sessions (null: none unless the session or the run asks). */
  workspace: WorkspaceMode | null;
  /** Run once in each new worktree before the first attempt (`/bin/sh -c`). */
  setup: string | null;
  pos: Position | null;
}

/** A session statement with its properties resolved. Indexed by ordinal in `FlowPlan.sessions`. */
export interface SessionSpec {
  ordinal: number;
  pos: Position;
  /** A human label: the prompt's literal text, shortened. */
  name: string;
  prompt: Template | null;
  /** null: the run's default agent. */
  agent: string | null;
  /** Kept as written even when invalid: the engine validates it before step 0 (rule 3). */
  retry: RetryPolicy;
  /** True when the session (not its agent) set `retry`. */
  retryExplicit: boolean;
  timeoutMs: number | null;
  simulate: string | null;
  /** Channel names given by `context:`; their values are passed to the runtime. */
  context: readonly string[];
  /** Workspace, scope, expected changes and checks (docs/rules.md §5b). */
  work: SessionWork;
}

/**
 * The flow's `repo:`: a repository path, or `template:<folder>` — a fresh repository made from
 * that folder for each run (demos, tests). Paths are relative to the flow file's folder.
 */
export type RepoSpec = { kind: 'path'; path: string; pos: Position } | { kind: 'template'; path: string; pos: Position };

export interface FlowPlan {
  file: string;
  program: Program;
  agents: ReadonlyMap<string, AgentSpec>;
  /** sessions[ordinal] */
  sessions: readonly SessionSpec[];
  /** Names declared by `let` / `const` / parallel branches at any depth: the channels of a run. */
  channels: readonly ChannelSpec[];
  /** The flow's own `repo:`, or null. */
  repo: RepoSpec | null;
}

export interface ChannelSpec {
  name: string;
  /** `const` channels may be written once per run. */
  constant: boolean;
  /** Branch results of a parallel are local to their branch: one write per task is allowed. */
  scope: 'global' | 'branch';
}

export interface CheckResult {
  ok: boolean;
  /** At most MAX_LISTED_DIAGNOSTICS, then one "… and N more" (source.ts `boundDiagnostics`). */
  diagnostics: Diagnostic[];
  /** Every error found, listed or not. */
  errorCount: number;
  /** Present whenever parsing succeeded, even with validation errors, so tools can show structure. */
  plan: FlowPlan | null;
}
