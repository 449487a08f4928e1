import {
  OnFail,
  type AgentDecl,
  type BindStmt,
  type Diagnostic,
  type DoStmt,
  type ParallelBranch,
  type ParallelStmt,
  type Position,
  type Program,
  type Property,
  type RepeatStmt,
  type SessionStmt,
  type Statement,
  type StringExpr,
  type ThrowStmt,
  type TryStmt,
} from './ast.js';
import { sortDiagnostics } from './diagnostics.js';
import { expectName, KEYWORDS } from './keywords.js';
import { describeToken, lex, type Token } from './lexer.js';
import { parseInlineProperties, parseValue } from './parse-properties.js';
import { parseAgent, parseSession } from './parse-session.js';
import { describeTemplate } from './template.js';
import { parseLines, recoveredNames } from './line-recovery.js';
import { TokenCursor } from './token-cursor.js';

/**
 * The grammar of docs/rules.md §3, by recursive descent over the lexer's tokens. Each line is parsed
 * inside a recovery boundary: a syntax error is reported, the line and the block under it are
 * skipped, and parsing goes on, so a file's every problem shows up in one `check`. Here: the
 * program, its statements and the blocks that hold statements; agents and sessions, which hold
 * only properties, are parse-session.ts's, the property grammar parse-properties.ts's.
 */

const STATEMENT_KINDS = 'session, let, const, try, throw, parallel, repeat, do';

export interface ParseResult {
  program: Program;
  /** Lexer and parser diagnostics, plus the few semantic ones the parser sees first; sorted. */
  diagnostics: Diagnostic[];
  /** False when the text is not well-formed; then the AST is a best-effort recovery. */
  syntaxOk: boolean;
  /**
   * Names that lines dropped by recovery would have declared. The validator treats them as
   * declared so that one broken `let x = ...` does not also make every later `{x}` "undefined".
   */
  recovered: { channels: ReadonlySet<string>; agents: ReadonlySet<string> };
}

export function parseFlow(source: string, file: string): ParseResult {
  const { tokens, diagnostics } = lex(source, file);
  return new Parser(tokens, file, source, diagnostics).parseProgram();
}

class Parser {
  private readonly c: TokenCursor;
  private readonly agents: AgentDecl[] = [];
  /** Problems of meaning found while parsing (a second `prompt:`): they do not make the syntax invalid. */
  private readonly semantic: Diagnostic[] = [];
  private readonly recoveredChannels = new Set<string>();
  private readonly recoveredAgents = new Set<string>();
  private repo: Program['repo'] = null;

  constructor(
    tokens: readonly Token[],
    private readonly file: string,
    private readonly source: string,
    diagnostics: Diagnostic[],
  ) {
    this.c = new TokenCursor(tokens, file, diagnostics);
  }

  parseProgram(): ParseResult {
    const body: Statement[] = [];
    while (!this.c.at('eof')) {
      body.push(...this.lines((quiet) => this.statement(true, quiet)));
      // The lexer balances INDENT and DEDENT, so this only guards against looping forever.
      if (this.c.at('dedent')) this.c.next();
    }
    const syntaxOk = this.c.diagnostics.length === 0;
    return {
      program: { file: this.file, source: this.source, agents: this.agents, body, repo: this.repo },
      diagnostics: sortDiagnostics([...this.c.diagnostics, ...this.semantic]),
      syntaxOk,
      recovered: { channels: this.recoveredChannels, agents: this.recoveredAgents },
    };
  }

  private reportSemantic(message: string, pos: Position): void {
    this.semantic.push({ file: this.file, line: pos.line, column: pos.column, message, severity: 'error' });
  }

  private sessionStatement(): SessionStmt {
    return parseSession(this.c, (message, pos) => this.reportSemantic(message, pos));
  }

  /** The lines of one block (or of the file), each inside a recovery boundary (line-recovery.ts). */
  private lines<T>(parseOne: (quiet: boolean) => T | null): T[] {
    return parseLines(this.c, parseOne, (first, second) => {
      const names = recoveredNames(first, second);
      if (names.channel !== null) this.recoveredChannels.add(names.channel);
      if (names.agent !== null) this.recoveredAgents.add(names.agent);
      return names.partOfTry;
    });
  }

  private statement(topLevel: boolean, quiet: boolean): Statement | null {
    const first = this.c.peek();
    if (first.kind !== 'word') return this.c.fail(`expected a statement (${STATEMENT_KINDS}), got ${describeToken(first)}`);
    switch (first.text) {
      case 'agent': {
        // Parsed even when misplaced, so its own problems are reported and sessions still find it.
        if (!topLevel) this.c.report('agent declarations belong at the top level of the file', first.pos);
        this.agents.push(parseAgent(this.c));
        return null;
      }
      case 'session':
        return this.sessionStatement();
      case 'let':
      case 'const':
        return this.declaration();
      case 'try':
        return this.tryStatement();
      case 'catch':
      case 'finally':
        return this.orphanClause(quiet);
      case 'throw':
        return this.throwStatement();
      case 'parallel':
        return this.parallel();
      case 'repeat':
        return this.repeat();
      case 'do':
        return this.doBlock();
      default:
        if (this.c.atPunct('=', 1)) return this.assignment();
        if (first.text === 'repo' && this.c.atPunct(':', 1)) return this.repoDirective(topLevel);
        if (this.c.atPunct(':', 1)) {
          return this.c.fail(`"${first.text}:" looks like a property: indent it under the agent or session it belongs to`);
        }
        return this.c.fail(`expected a statement (${STATEMENT_KINDS}), got "${first.text}"`);
    }
  }

  /** `repo: "path"` at the top of a flow: where its agent work runs (docs/rules.md §5b). */
  private repoDirective(topLevel: boolean): null {
    const keyword = this.c.next();
    this.c.next();
    const value = parseValue(this.c);
    this.c.expectEndOfLine('the repository');
    if (!topLevel) this.reportSemantic('repo: belongs at the top level of the file', keyword.pos);
    else if (this.repo) this.reportSemantic(`the flow already names its repository at ${this.repo.pos.line}:${this.repo.pos.column}`, keyword.pos);
    else this.repo = { value, pos: keyword.pos };
    return null;
  }

  private statementBlock(header: Token, label: string): Statement[] {
    return this.c.indentedBlock(header, label, () => this.lines((quiet) => this.statement(false, quiet)));
  }

  /** The right side of `=`: a session, a parallel, or (for variables, not branches) a string. */
  private boundValue(allowString: boolean): SessionStmt | ParallelStmt | StringExpr {
    if (this.c.atWord('session')) return this.sessionStatement();
    if (this.c.atWord('parallel')) return this.parallel();
    const token = this.c.peek();
    if (allowString && token.kind === 'string') {
      this.c.next();
      this.c.expectEndOfLine('the string');
      return { kind: 'string', value: token.template, pos: token.pos };
    }
    const expected = allowString ? 'session, parallel or a "string"' : 'session or parallel (a named branch runs one of them)';
    return this.c.fail(`expected ${expected} after "=", got ${describeToken(token)}`);
  }

  private declaration(): BindStmt {
    const keyword = this.c.next();
    const binding = keyword.text === 'const' ? 'const' : 'let';
    const name = expectName(this.c, `a name after "${binding}"`);
    this.c.expectPunct('=', `"=" after "${binding} ${name.text}"`);
    const value = this.boundValue(true);
    return { kind: 'bind', binding, name: name.text, namePos: name.pos, value, pos: keyword.pos };
  }

  private assignment(): BindStmt {
    const name = expectName(this.c, 'a name');
    this.c.next(); // '=' (checked by the caller)
    const value = this.boundValue(true);
    return { kind: 'bind', binding: 'assign', name: name.text, namePos: name.pos, value, pos: name.pos };
  }

  private tryStatement(): TryStmt {
    const keyword = this.c.next();
    this.c.expectBlockHeader('try');
    const body = this.statementBlock(keyword, 'try:');
    const statement = this.clauses(keyword.pos, body);
    if (statement.catchClause === null && statement.finallyBody === null) {
      this.c.report('try needs a catch or a finally block after its body', keyword.pos);
    }
    return statement;
  }

  /** The `catch` and `finally` clauses after a try body, in that order, each optional. */
  private clauses(pos: Position, body: Statement[]): TryStmt {
    let catchClause: TryStmt['catchClause'] = null;
    if (this.c.atWord('catch')) {
      const keyword = this.c.next();
      let errorName: string | null = null;
      // `catch as err:` and `catch err:` mean the same; `as` alone before ":" would be a keyword misused.
      if (this.c.atWord('as') && this.c.at('word', 1)) this.c.next();
      if (!this.c.atPunct(':')) errorName = expectName(this.c, 'an error name or ":" after "catch"').text;
      this.c.expectBlockHeader(errorName === null ? 'catch' : `catch ${errorName}`);
      catchClause = { errorName, body: this.statementBlock(keyword, 'catch:'), pos: keyword.pos };
    }
    let finallyBody: Statement[] | null = null;
    if (this.c.atWord('finally')) {
      const keyword = this.c.next();
      this.c.expectBlockHeader('finally');
      finallyBody = this.statementBlock(keyword, 'finally:');
    }
    return { kind: 'try', body, catchClause, finallyBody, pos };
  }

  /**
   * A `catch` or `finally` with no `try` before it. Reported, then parsed as the clause of an
   * empty try so that the problems inside it (and its error name) are still checked.
   */
  private orphanClause(quiet: boolean): TryStmt {
    const keyword = this.c.peek();
    if (!quiet) {
      const message =
        keyword.text === 'catch'
          ? 'catch without a matching try: a catch block must directly follow the body of a try'
          : 'finally without a matching try: a finally block must directly follow the body of a try or its catch';
      this.c.report(message, keyword.pos);
    }
    return this.clauses(keyword.pos, []);
  }

  private throwStatement(): ThrowStmt {
    const keyword = this.c.next();
    const token = this.c.peek();
    if (token.kind === 'string') {
      this.c.next();
      this.c.expectEndOfLine('the throw message');
      return { kind: 'throw', message: token.template, pos: keyword.pos };
    }
    if (token.kind === 'word') {
      this.c.fail('throw takes no name: write throw alone to rethrow the error being handled, or throw "message" to raise a new one');
    }
    this.c.expectEndOfLine('"throw"');
    return { kind: 'throw', message: null, pos: keyword.pos };
  }

  private parallel(): ParallelStmt {
    const keyword = this.c.next();
    const properties = this.c.atPunct('(') ? parseInlineProperties(this.c) : [];
    this.c.expectBlockHeader('parallel');
    const branches = this.c.indentedBlock(keyword, 'parallel:', () => this.lines((quiet) => this.branch(quiet)));
    return { kind: 'parallel', onFail: onFailOf(properties), properties, branches, pos: keyword.pos };
  }

  /** One line under `parallel:`: `name = session ...` (a named result) or any single statement. */
  private branch(quiet: boolean): ParallelBranch | null {
    const first = this.c.peek();
    if (first.kind === 'word' && !KEYWORDS.has(first.text) && this.c.atPunct('=', 1)) {
      const name = expectName(this.c, 'a branch name');
      this.c.next(); // '='
      const body = this.boundValue(false);
      if (body.kind === 'string') return this.c.fail('a named branch runs a session or a parallel');
      return { name: name.text, body, pos: first.pos };
    }
    const body = this.statement(false, quiet);
    return body === null ? null : { name: null, body, pos: first.pos };
  }

  private repeat(): RepeatStmt {
    const keyword = this.c.next();
    const count = this.c.peek();
    if (count.kind !== 'number') return this.c.fail(`repeat count must be a positive whole number, got ${describeToken(count)}`);
    this.c.next();
    if (!Number.isInteger(count.value) || count.value < 1) {
      this.reportSemantic(`repeat count must be a positive whole number, got ${count.text}`, count.pos);
    }
    let indexName: string | null = null;
    if (this.c.atWord('as')) {
      this.c.next();
      indexName = expectName(this.c, 'an index name after "as"').text;
    }
    const header = `repeat ${count.text}${indexName === null ? '' : ` as ${indexName}`}`;
    this.c.expectBlockHeader(header);
    const body = this.statementBlock(keyword, `${header}:`);
    return { kind: 'repeat', count: count.value, indexName, body, pos: keyword.pos };
  }

  private doBlock(): DoStmt {
    const keyword = this.c.next();
    this.c.expectBlockHeader('do');
    return { kind: 'do', body: this.statementBlock(keyword, 'do:'), pos: keyword.pos };
  }
}

const ON_FAIL_VALUES: readonly string[] = Object.values(OnFail);

/** The parallel's policy when `on-fail` is valid; the validator reports an invalid one. */
function onFailOf(properties: readonly Property[]): OnFail {
  const value = properties.find((p) => p.name === 'on-fail')?.value;
  const text = value?.kind === 'word' ? value.value : value?.kind === 'string' ? describeTemplate(value.value) : null;
  return text !== null && ON_FAIL_VALUES.includes(text) ? (text as OnFail) : OnFail.failFast;
}
