import type { Template } from '../../flow/syntax/ast.js';
import { concurrent, inDead, type Frame } from './model-failures.js';
import { format, keyOf, parentPath } from './model-names.js';
import type { Ctx, Write } from './model-threads.js';

/**
 * The reference model's channels (docs/semantics.md rules 5, 7 and 7b): the committed values and
 * the writes since the last commit. A thread reads the committed value overlaid with the
 * uncommitted writes of threads not concurrent with it, in the order they were made; a commit
 * applies every write outside a dead parallel, or none when two concurrent threads wrote one
 * channel.
 */
export class ModelChannels {
  private readonly committed = new Map<string, unknown>();
  private log: Write[] = [];

  constructor(private readonly declared: ReadonlySet<string>) {}

  /** Writes staged since the last commit. */
  get uncommitted(): number {
    return this.log.length;
  }

  resolveKey(name: string, path: string): string {
    for (let p = path; ; p = parentPath(p)) {
      if (this.declared.has(keyOf(name, p)) || p === '') return keyOf(name, p);
    }
  }

  private read(key: string, frames: readonly Frame[]): unknown {
    let value = this.committed.get(key);
    for (const w of this.log) if (w.key === key && !concurrent(w.frames, frames) && !inDead(w.frames)) value = w.value;
    return value;
  }

  render(template: Template, ctx: Ctx): string {
    return template.parts
      .map((part) => {
        if (part.kind === 'text') return part.text;
        const [head = '', ...fields] = part.path;
        let value = ctx.locals.has(head) ? ctx.locals.get(head) : this.read(this.resolveKey(head, ctx.path), ctx.frames);
        for (const field of fields) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
        return format(value);
      })
      .join('');
  }

  stage(key: string, value: unknown, ctx: Ctx): void {
    this.log.push({ key, value, frames: ctx.frames });
  }

  /** Applies the writes since the last commit, all or none: false when two concurrent threads wrote one channel. */
  commit(): boolean {
    const writes = this.log.filter((w) => !inDead(w.frames));
    this.log = [];
    for (let i = 0; i < writes.length; i++) {
      for (let j = 0; j < i; j++) {
        const [a, b] = [writes[j] as Write, writes[i] as Write];
        if (a.key === b.key && concurrent(a.frames, b.frames)) return false;
      }
    }
    for (const w of writes) this.committed.set(w.key, w.value);
    return true;
  }

  snapshot(): Record<string, unknown> {
    return Object.fromEntries(this.committed);
  }
}
