import type { ParallelStmt } from '../../flow/syntax/ast.js';
import type { Cancel, Failure, Frame, Par } from './model-failures.js';

/** The reference model's threads (reference-model.ts): generators that park on sessions and fork parallels. */

export interface Ctx {
  path: string;
  frames: readonly Frame[];
  locals: ReadonlyMap<string, unknown>;
  handling: Failure | null;
}

export type Yielded = { kind: 'session'; ordinal: number; target: string | null; ctx: Ctx } | { kind: 'fork'; stmt: ParallelStmt; par: Par; ctx: Ctx };
export type Gen = Generator<Yielded, unknown, unknown>;
export type Input = { next: unknown } | { fail: Failure } | { cancel: Cancel };

export interface Fork {
  parent: Thread;
  stmt: ParallelStmt;
  par: Par;
  ends: (End | undefined)[];
}
export type End = { kind: 'value'; value: unknown } | { kind: 'fail'; failure: Failure } | { kind: 'cancel'; cleanups: readonly Failure[] };

export interface Thread {
  gen: Gen;
  fork: Fork | null;
  index: number;
}

export interface Parked {
  thread: Thread;
  ordinal: number;
  target: string | null;
  ctx: Ctx;
}

export interface Write {
  key: string;
  value: unknown;
  frames: readonly Frame[];
}
