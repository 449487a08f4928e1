/**
 * The flow language's syntax tree. Every node carries the position of its first token so that
 * diagnostics and runtime errors can name file, line and column. Ordinals are assigned by the
 * validator (pre-order, branch order first) to session statements only.
 */

export interface Position {
  line: number; // 1-based
  column: number; // 1-based
}

interface Located {
  pos: Position;
}

/** A string with `{name}` / `{err.message}` holes, kept as parts so nothing is re-parsed at run time. */
export interface Template extends Located {
  parts: readonly TemplatePart[];
}
export type TemplatePart = { kind: 'text'; text: string } | { kind: 'ref'; path: readonly string[]; pos: Position };

/** A property value as written: `3`, `"30s"`, `exponential`, `[1s, 5s]`. Meaning is the validator's job. */
export type PropertyValue =
  | { kind: 'number'; value: number; pos: Position }
  | { kind: 'string'; value: Template; pos: Position }
  | { kind: 'word'; value: string; pos: Position }
  | { kind: 'list'; items: readonly PropertyValue[]; pos: Position }
  /** `verify:` with `name: value` lines indented under it. */
  | { kind: 'block'; properties: readonly Property[]; pos: Position };

export interface Property extends Located {
  name: string;
  value: PropertyValue;
}

export interface AgentDecl extends Located {
  kind: 'agent';
  name: string;
  properties: readonly Property[];
}

export interface SessionStmt extends Located {
  kind: 'session';
  /** `session "prompt"` gives a prompt; `session: coder` gives an agent; both may appear. */
  prompt: Template | null;
  agent: string | null;
  /** Where the agent was named (`session: coder` or `agent: coder`), for diagnostics. */
  agentPos?: Position | null;
  /** Inline `(retry: 3)` properties first, then the indented block's, in source order. */
  properties: readonly Property[];
  /** Filled in by the validator: stable position in the program. */
  ordinal: number;
}

/** `let x = <value>`, `const x = <value>`, `x = <value>` (assignment to an existing channel). */
export interface BindStmt extends Located {
  kind: 'bind';
  binding: 'let' | 'const' | 'assign';
  name: string;
  /** Where the name was written (for `let x` the `x`), for diagnostics. */
  namePos?: Position;
  value: SessionStmt | ParallelStmt | StringExpr;
}

export interface StringExpr extends Located {
  kind: 'string';
  value: Template;
}

export interface TryStmt extends Located {
  kind: 'try';
  body: readonly Statement[];
  /** null when there is no catch clause. `errorName` is null for a bare `catch:`. */
  catchClause: { errorName: string | null; body: readonly Statement[]; pos: Position } | null;
  finallyBody: readonly Statement[] | null;
}

export interface ThrowStmt extends Located {
  kind: 'throw';
  /** null: rethrow the error being handled (only valid inside a catch). */
  message: Template | null;
}

export const OnFail = {
  failFast: 'fail-fast',
  continue: 'continue',
  ignore: 'ignore',
} as const;
export type OnFail = (typeof OnFail)[keyof typeof OnFail];

export interface ParallelBranch extends Located {
  /** `a = session "A"` names the branch result; null for an unnamed branch. */
  name: string | null;
  body: Statement;
}

export interface ParallelStmt extends Located {
  kind: 'parallel';
  onFail: OnFail;
  properties: readonly Property[];
  branches: readonly ParallelBranch[];
}

export interface RepeatStmt extends Located {
  kind: 'repeat';
  count: number;
  /** `repeat 3 as i:` binds the 1-based iteration number; null without `as`. */
  indexName: string | null;
  body: readonly Statement[];
}

/** `do:` groups statements, e.g. to give a parallel branch several steps. */
export interface DoStmt extends Located {
  kind: 'do';
  body: readonly Statement[];
}

export type Statement = SessionStmt | BindStmt | TryStmt | ThrowStmt | ParallelStmt | RepeatStmt | DoStmt;

export interface Program {
  file: string;
  /** The text the program was parsed from: its digest is what resume compares (resume.ts). */
  source: string;
  agents: readonly AgentDecl[];
  body: readonly Statement[];
  /** A top-level `repo: "path"`: the repository agent work runs in (docs/rules.md §5b), or null. */
  repo?: { value: PropertyValue; pos: Position } | null;
}

/** One problem found in a flow. `format` gives `file:line:col: message`. */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.message}`;
}

/**
 * A statement's place in program order as one number. Ordinals number sessions in pre-order with
 * parallel branches in order, which is the order of the source text, so comparing positions
 * compares ordinals, and it places a `throw` or an assignment between the sessions around it.
 */
export function programOrder(pos: Position): number {
  return pos.line * 1_000_000 + pos.column;
}
