import { apiErrorFrom } from '../../core/common/api-errors.js';
import type { ApiMethod } from '../../core/common/api-routes.js';

/**
 * The reads a window starts together travel as one `POST /api/batch` (server/batch.ts): the
 * calls made in one turn of the event loop (a screen's first round is a dozen, asked at once)
 * are sent when the turn ends, in the order they were made. One read alone goes as its own GET.
 * Each call's promise settles with its own answer or error, exactly as its GET would.
 */

/** The most calls one batch carries (server/batch.ts MAX_BATCH_CALLS); more are sent as several batches. */
export const BATCH_MOST = 32;

export interface BatchAnswer {
  results: { status: number; body: unknown }[];
}

interface Pending {
  method: ApiMethod;
  input: Record<string, unknown> | undefined;
  alone: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface ReadBatcher {
  /** `alone`: the read as its own request, used when nothing else was asked in the same turn. */
  read(method: ApiMethod, input: Record<string, unknown> | undefined, alone: () => Promise<unknown>): Promise<unknown>;
}

interface TaskScheduler {
  postTask(task: () => void, options: { priority: 'user-blocking' }): Promise<unknown>;
}

/**
 * The next task, ahead of the page's own: Chromium's `scheduler.postTask` at user-blocking
 * priority runs before the tasks already queued (React's first render of a window, ~35 ms on a
 * cold open, which otherwise went first and held the window's first reads back), a plain timer
 * elsewhere (Node, which has no `scheduler`).
 */
function nextTask(task: () => void): void {
  const scheduler = (globalThis as { scheduler?: TaskScheduler }).scheduler;
  if (scheduler?.postTask) void scheduler.postTask(task, { priority: 'user-blocking' });
  else setTimeout(task, 0);
}

export function readBatcher(send: (calls: { method: ApiMethod; input?: Record<string, unknown> }[]) => Promise<BatchAnswer>): ReadBatcher {
  let pending: Pending[] = [];

  const sendPart = (part: Pending[]): void => {
    send(part.map(({ method, input }) => (input === undefined ? { method } : { method, input }))).then(
      ({ results }) =>
        part.forEach((call, i) => {
          const result = results[i];
          if (result === undefined) call.reject(apiErrorFrom(0, null, `${call.method}: the batch's answer has no result for it`));
          else if (result.status >= 200 && result.status < 300) call.resolve(result.body);
          else call.reject(apiErrorFrom(result.status, result.body, `${call.method}: HTTP ${result.status}`));
        }),
      (error: unknown) => part.forEach((call) => call.reject(error)),
    );
  };

  const flush = (): void => {
    const taken = pending;
    pending = [];
    if (taken.length === 1) {
      const [only] = taken as [Pending];
      only.alone().then(only.resolve, only.reject);
      return;
    }
    for (let at = 0; at < taken.length; at += BATCH_MOST) sendPart(taken.slice(at, at + BATCH_MOST));
  };

  return {
    read: (method, input, alone) =>
      new Promise((resolve, reject) => {
        pending.push({ method, input, alone, resolve, reject });
        // A task, not a microtask: a screen's reads are asked across a few promise steps of one turn.
        if (pending.length === 1) nextTask(flush);
      }),
  };
}
