import { NO_RETRY } from '../../base/errors/retry.js';
import type { Diagnostic, ParallelStmt, Position, Program, SessionStmt, Statement, Template } from '../syntax/ast.js';
import { collectChannels } from './channels.js';
import { BUILTIN_AGENTS, type AgentSpec, type ChannelSpec, type FlowPlan, type RepoSpec, type SessionSpec } from '../plan/plan.js';
import { literalText } from './properties.js';
import { retryOwnerDiagnostics } from './retry-owners.js';
import type { PropertyValue } from '../syntax/ast.js';
import { PARALLEL_PROPERTIES, indexProperties, readOnFail, type Report } from './properties.js';
import { buildAgentSpec, isKnownAgent, readSessionProperties, sessionName } from './specs.js';
import { templateRefs } from '../syntax/template.js';

/**
 * Meaning, after syntax: ordinals, names and scopes, properties, and the FlowPlan the engine
 * runs. Ordinals follow the program in pre-order with parallel branches in order ("branch order
 * first"), so `plan.sessions[ordinal]` is the session statement with that ordinal, and the same
 * file always numbers its sessions the same way.
 */

/** What `{err.<field>}` may read of a caught error (the envelope fields a prompt can use). */
const ERROR_FIELDS: readonly string[] = ['message', 'code', 'category', 'origin', 'recoverable'];

export interface ValidateOptions {
  /** Names that lines dropped by parse recovery would have declared: not reported as unknown. */
  assumeDeclared?: { channels?: ReadonlySet<string>; agents?: ReadonlySet<string> };
}

export interface Validation {
  diagnostics: Diagnostic[];
  plan: FlowPlan;
}

/** Names visible at one point: the caught error of each enclosing catch, the index of each enclosing repeat. */
interface Scope {
  locals: ReadonlyMap<string, 'error' | 'index' | 'feedback'>;
  /** Inside a catch body, where a bare `throw` has an error to rethrow. */
  inCatch: boolean;
}

const at = (pos: Position): string => `${pos.line}:${pos.column}`;

/** Sets `ordinal` on every session statement of `program`. */
export function validateProgram(program: Program, options: ValidateOptions = {}): Validation {
  return new Validator(program, options).run();
}

class Validator {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly agents = new Map<string, AgentSpec>();
  private readonly sessions: SessionSpec[] = [];
  private channelNames = new Set<string>();
  private readonly report: Report = (message, pos) => {
    this.diagnostics.push({ file: this.program.file, line: pos.line, column: pos.column, message, severity: 'error' });
  };

  constructor(
    private readonly program: Program,
    private readonly options: ValidateOptions,
  ) {}

  run(): Validation {
    for (const decl of this.program.agents) {
      // A duplicate is still checked, so its own problems show too; the first declaration wins.
      const first = this.agents.get(decl.name);
      if (first) this.report(`agent "${decl.name}" is already declared at ${at(first.pos ?? decl.pos)}`, decl.pos);
      const spec = buildAgentSpec(decl, this.report);
      if (!first) this.agents.set(decl.name, spec);
    }
    const channels = collectChannels(this.program.body, this.report, this.options.assumeDeclared?.channels);
    this.channelNames = new Set([...channels.map((c) => c.name), ...(this.options.assumeDeclared?.channels ?? [])]);
    this.block(this.program.body, { locals: new Map(), inCatch: false });

    const plainChannels: ChannelSpec[] = channels.map(({ name, constant, scope }) => ({ name, constant, scope }));
    const plan: FlowPlan = {
      file: this.program.file,
      program: this.program,
      agents: this.agents,
      sessions: this.sessions,
      channels: plainChannels,
      repo: this.program.repo ? readRepo(this.program.repo.value, this.program.repo.pos, this.report) : null,
    };
    // Rule 20: the engine and an agent CLI never both retry one failure.
    this.diagnostics.push(...retryOwnerDiagnostics(plan));
    return { diagnostics: this.diagnostics, plan };
  }

  private block(statements: readonly Statement[], scope: Scope): void {
    for (const statement of statements) this.statement(statement, scope);
  }

  private statement(statement: Statement, scope: Scope): void {
    switch (statement.kind) {
      case 'session':
        this.session(statement, scope);
        return;
      case 'bind':
        if (statement.value.kind === 'string') this.templateNames(statement.value.value, scope);
        else this.statement(statement.value, scope);
        return;
      case 'try': {
        this.block(statement.body, scope);
        const clause = statement.catchClause;
        if (clause) {
          const locals = new Map(scope.locals);
          if (clause.errorName !== null) locals.set(clause.errorName, 'error');
          this.block(clause.body, { locals, inCatch: true });
        }
        if (statement.finallyBody) this.block(statement.finallyBody, scope);
        return;
      }
      case 'throw':
        if (statement.message) this.templateNames(statement.message, scope);
        else if (!scope.inCatch) {
          this.report(
            'throw without a message rethrows the error being handled, so it must be inside a catch block; write throw "message" to raise a new error',
            statement.pos,
          );
        }
        return;
      case 'parallel':
        this.parallel(statement, scope);
        return;
      case 'repeat': {
        const locals = new Map(scope.locals);
        if (statement.indexName !== null) locals.set(statement.indexName, 'index');
        this.block(statement.body, { locals, inCatch: scope.inCatch });
        return;
      }
      case 'do':
        this.block(statement.body, scope);
        return;
    }
  }

  private parallel(statement: ParallelStmt, scope: Scope): void {
    const props = indexProperties(statement.properties, PARALLEL_PROPERTIES, 'parallel', this.report);
    const onFail = props.get('on-fail');
    if (onFail) readOnFail(onFail.value, this.report);
    for (const branch of statement.branches) this.statement(branch.body, scope);
  }

  private session(stmt: SessionStmt, scope: Scope): void {
    const ordinal = this.sessions.length;
    stmt.ordinal = ordinal;
    const props = readSessionProperties(stmt, this.report);
    // `{feedback}` places the previous attempt's failure in the prompt.
    if (stmt.prompt) this.templateNames(stmt.prompt, { ...scope, locals: new Map([...scope.locals, ['feedback', 'feedback']]) });
    for (const ref of props.context) {
      if (!this.channelNames.has(ref.name)) {
        this.report(`unknown variable "${ref.name}" in context: name a variable declared with let, const or a parallel branch`, ref.pos);
      }
    }
    if (stmt.agent !== null && !isKnownAgent(stmt.agent, this.agents) && !this.options.assumeDeclared?.agents?.has(stmt.agent)) {
      this.report(`unknown agent "${stmt.agent}": declare it with agent ${stmt.agent}: or use one of ${BUILTIN_AGENTS.join(', ')}`, stmt.agentPos ?? stmt.pos);
    }
    // The session's own policy wins; else its agent's; else one attempt. A session without an
    // agent gets the run's default agent later, whose policy the engine applies then.
    const agentPolicy = stmt.agent === null ? null : (this.agents.get(stmt.agent)?.retry ?? null);
    this.sessions.push({
      ordinal,
      pos: stmt.pos,
      name: sessionName(stmt.prompt, ordinal),
      prompt: stmt.prompt,
      agent: stmt.agent,
      retry: props.retry ?? agentPolicy ?? NO_RETRY,
      retryExplicit: props.retry !== null,
      timeoutMs: props.timeoutMs,
      simulate: props.simulate,
      context: props.context.map((ref) => ref.name),
      work: props.work,
    });
    const { verifier, verifierPos } = props.work;
    if (verifier !== null && !isKnownAgent(verifier, this.agents) && !this.options.assumeDeclared?.agents?.has(verifier)) {
      this.report(
        `unknown verifier agent "${verifier}": declare it with agent ${verifier}: or use one of ${BUILTIN_AGENTS.join(', ')}`,
        verifierPos ?? stmt.pos,
      );
    }
  }

  /** Every `{name}` of a template must name a channel, or a caught error or repeat index in scope. */
  private templateNames(template: Template, scope: Scope): void {
    for (const ref of templateRefs(template)) {
      const [head = '', ...fields] = ref.path;
      const field = fields.join('.');
      const local = scope.locals.get(head);
      if (local === 'error') {
        if (field !== '' && !ERROR_FIELDS.includes(field)) {
          this.report(`the caught error "${head}" has no field "${field}": use one of ${ERROR_FIELDS.join(', ')}`, ref.pos);
        }
      } else if (local === 'index') {
        if (field !== '') this.report(`"${head}" is the repeat index, a number, and has no field "${field}"`, ref.pos);
      } else if (local === 'feedback') {
        if (field !== '') this.report(`"${head}" is the previous attempt's failure, a text, and has no field "${field}"`, ref.pos);
      } else if (!this.channelNames.has(head)) {
        this.report(`undefined name "${head}" in {${ref.path.join('.')}}: no variable, caught error or repeat index of that name is in scope here`, ref.pos);
      }
    }
  }
}

/** `repo: "path"` or `repo: "template:<folder>"`. */
function readRepo(value: PropertyValue, pos: Position, report: Report): RepoSpec | null {
  const text = literalText('repo', value, 'a "path"', report);
  if (text === null) return null;
  if (text.trim() === '') {
    report('repo cannot be empty: name a repository folder, or template:<folder>', value.pos);
    return null;
  }
  if (text.startsWith('template:')) {
    const path = text.slice('template:'.length);
    if (path === '') {
      report('repo: template: needs a folder, e.g. "template:scratch"', value.pos);
      return null;
    }
    return { kind: 'template', path, pos };
  }
  return { kind: 'path', path: text, pos };
}
