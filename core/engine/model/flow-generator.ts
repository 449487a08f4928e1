import fc from 'fast-check';
import type { ErrorCode } from '../../base/errors/taxonomy.js';
import type { ScriptedOutcome } from './racing-runtime.js';

/**
 * Random valid flows for the model-agreement property: let / const / assignment / sessions with
 * retries / try / catch / finally / throw / nested parallel in all three on-fail modes / repeat,
 * with a scripted outcome for every attempt of every session.
 *
 * The generator keeps each flow within what `check` accepts: a variable written inside a
 * parallel branch belongs to that branch alone (the writable names are split among the
 * branches), names are unique, `throw` without a message only inside a catch.
 */

export interface GeneratedFlow {
  source: string;
  /** Attempt outcomes by session id (the `s<id>` that starts its prompt), the last repeating. */
  outcomes: Map<number, ScriptedOutcome[]>;
}

type Gen = fc.GeneratorValue;

const FAILURES: readonly ErrorCode[] = [
  'RUNTIME_CRASHED',
  'RUNTIME_RATE_LIMIT',
  'RUNTIME_TIMEOUT',
  'AGENT_NO_CHANGES',
  'USER_INVALID_CONFIG',
  'SYSTEM_INVARIANT_VIOLATED',
];

interface Scope {
  /** Variables this part of the program may assign. */
  writable: string[];
  /** Variables it may read. */
  readable: string[];
  inCatch: boolean;
  /** The caught error's name in the innermost catch, when it has one. */
  errName: string | null;
  inRepeat: boolean;
  repeatIndex: string | null;
  depth: number;
}

class Builder {
  private readonly lines: string[] = [];
  private nextSession = 0;
  private nextName = 0;
  readonly outcomes = new Map<number, ScriptedOutcome[]>();

  constructor(
    private readonly g: Gen,
    /** Also write each session's script as `simulate:`, for the fake agent subprocess (its outcomes only). */
    private readonly withSimulate: boolean,
  ) {}

  private int(min: number, max: number): number {
    return this.g(fc.integer, { min, max });
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  private chance(percent: number): boolean {
    return this.int(1, 100) <= percent;
  }

  private name(prefix: string): string {
    return `${prefix}${this.nextName++}`;
  }

  private emit(indent: number, text: string): void {
    this.lines.push(`${'  '.repeat(indent)}${text}`);
  }

  /** A string body that reads a few names in scope. */
  private text(label: string, scope: Scope): string {
    const refs: string[] = [];
    const count = this.int(0, 2);
    for (let i = 0; i < count; i++) {
      const errorFields = scope.errName === null ? [] : [`${scope.errName}.code`, `${scope.errName}.category`];
      const choices = [...scope.readable, ...(scope.repeatIndex ? [scope.repeatIndex] : []), ...errorFields];
      if (choices.length > 0) refs.push(`{${this.pick(choices)}}`);
    }
    return [label, ...refs].join(' ');
  }

  private session(indent: number, target: string, scope: Scope): void {
    const id = this.nextSession++;
    const attempts = this.int(1, 3);
    const script: ScriptedOutcome[] = [];
    for (let i = 0; i < attempts; i++) {
      const failures = this.withSimulate ? FAILURES.slice(0, 4) : FAILURES.slice(0, this.chance(90) ? 5 : 6);
      script.push(this.chance(68) ? { kind: 'ok', output: '' } : { kind: 'fail', code: this.pick(failures), message: `s${id} attempt ${i + 1} failed` });
    }
    this.outcomes.set(id, script);
    const retry = this.pick([0, 0, 1, 2]);
    const props = retry > 0 ? ` (retry: ${retry}, backoff: "none")` : '';
    this.emit(indent, `${target}session "${this.text(`s${id}`, scope)}"${props}`);
    if (this.withSimulate) this.emit(indent + 1, `simulate: "${script.map(simulateItem).join(', ')}"`);
  }

  block(indent: number, scope: Scope, min = 1, max = 3): void {
    const count = this.int(min, max);
    for (let i = 0; i < count; i++) this.statement(indent, scope);
  }

  private statement(indent: number, scope: Scope): void {
    const deep = scope.depth >= 3;
    const kind = this.pick(deep ? ['session', 'session', 'assign'] : ['session', 'session', 'assign', 'try', 'parallel', 'parallel', 'repeat', 'throw']);
    const inner: Scope = { ...scope, depth: scope.depth + 1 };
    switch (kind) {
      case 'session': {
        const target = scope.writable.length > 0 && this.chance(40) ? `${this.pick(scope.writable)} = ` : '';
        this.session(indent, target, scope);
        return;
      }
      case 'assign':
        if (scope.writable.length === 0) return this.session(indent, '', scope);
        this.emit(indent, `${this.pick(scope.writable)} = "${this.text('v', scope)}"`);
        return;
      case 'throw':
        // A throw where nothing handles it ends the run at once: keep those rare, or most flows would stop early.
        if (scope.inCatch && this.chance(50)) this.emit(indent, 'throw');
        else if (this.chance(scope.depth === 0 ? 8 : 45)) this.emit(indent, `throw "${this.text('thrown', scope)}"`);
        else this.session(indent, '', scope);
        return;
      case 'try': {
        this.emit(indent, 'try:');
        this.block(indent + 1, inner);
        const hasCatch = this.chance(70);
        const hasFinally = !hasCatch || this.chance(40);
        if (hasCatch) {
          const errName = this.chance(70) ? 'err' : null;
          this.emit(indent, errName ? `catch ${errName}:` : 'catch:');
          this.block(indent + 1, { ...inner, inCatch: true, errName });
        }
        if (hasFinally) {
          this.emit(indent, 'finally:');
          this.block(indent + 1, { ...inner, inCatch: false, errName: null });
        }
        return;
      }
      case 'repeat': {
        const index = this.name('i');
        this.emit(indent, `repeat ${this.int(1, 3)} as ${index}:`);
        this.block(indent + 1, { ...inner, inRepeat: true, repeatIndex: index }, 1, 2);
        return;
      }
      case 'parallel':
        this.parallel(indent, scope, inner);
        return;
    }
  }

  private parallel(indent: number, scope: Scope, inner: Scope): void {
    const mode = this.pick(['', '', ' (on-fail: "continue")', ' (on-fail: "ignore")']);
    const result = !scope.inRepeat && this.chance(30) ? this.name('r') : null;
    this.emit(indent, `${result ? `let ${result} = ` : ''}parallel${mode}:`);
    const branches = this.int(2, 3);
    // Each outer variable goes to at most one branch: branches never write the same variable.
    const shares: string[][] = Array.from({ length: branches }, () => []);
    for (const name of scope.writable) if (this.chance(60)) shares[this.int(0, branches - 1)]?.push(name);
    for (let b = 0; b < branches; b++) {
      const share = shares[b] as string[];
      if (this.chance(35)) {
        this.session(indent + 1, `${this.name('b')} = `, { ...inner, writable: share });
        continue;
      }
      this.emit(indent + 1, 'do:');
      const local = this.chance(40) ? this.name('l') : null;
      if (local) this.emit(indent + 2, `let ${local} = "${this.text('init', scope)}"`);
      const writable = local ? [...share, local] : share;
      this.block(indent + 2, { ...inner, writable, readable: local ? [...scope.readable, local] : scope.readable }, 1, 3);
    }
    if (result) {
      scope.readable.push(result);
      scope.writable.push(result);
    }
  }

  flow(): GeneratedFlow {
    const globals = ['g0', 'g1', 'g2'];
    for (const name of globals) this.emit(0, `let ${name} = "${name}"`);
    if (this.chance(30)) this.emit(0, 'const k = "fixed"');
    const readable = [...globals, ...(this.lines.some((l) => l.startsWith('const k')) ? ['k'] : [])];
    this.block(0, { writable: [...globals], readable, inCatch: false, errName: null, inRepeat: false, repeatIndex: null, depth: 0 }, 1, 4);
    return { source: `${this.lines.join('\n')}\n`, outcomes: this.outcomes };
  }
}

const SIMULATE_OF: Partial<Record<ErrorCode, string>> = {
  RUNTIME_CRASHED: 'crash',
  RUNTIME_RATE_LIMIT: 'rate_limit',
  RUNTIME_TIMEOUT: 'timeout',
  AGENT_NO_CHANGES: 'no_changes',
};

function simulateItem(outcome: ScriptedOutcome): string {
  if (outcome.kind === 'ok') return 'ok';
  const item = SIMULATE_OF[outcome.code];
  if (!item) throw new Error(`${outcome.code} has no simulate outcome`);
  return item;
}

export function generateFlow(g: Gen, options: { withSimulate?: boolean } = {}): GeneratedFlow {
  return new Builder(g, options.withSimulate ?? false).flow();
}

/** The outcome of attempt `attempt` of the session whose prompt is `prompt` (`s<id> …`). */
export function outcomeOf(flow: GeneratedFlow, prompt: string, attempt: number): ScriptedOutcome {
  const id = Number(/^s(\d+)/.exec(prompt)?.[1] ?? Number.NaN);
  const script = flow.outcomes.get(id);
  if (!script || script.length === 0) throw new Error(`no script for prompt "${prompt}"`);
  const outcome = script[Math.min(attempt, script.length) - 1] as ScriptedOutcome;
  // Outputs echo the prompt, so a wrong read anywhere upstream shows in the values.
  return outcome.kind === 'ok' ? { kind: 'ok', output: `${prompt}!` } : outcome;
}
