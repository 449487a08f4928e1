/**
 * Coalesces pushes into at most one flush per animation frame: a storm of live events costs one
 * store update and one render per frame, whatever its rate.
 */

export type FrameScheduler = {
  request(callback: () => void): number;
  cancel(handle: number): void;
};

/**
 * requestAnimationFrame while the window is visible; a slow timer while it is hidden (frames
 * stop in a hidden window, and the queue must not grow without bound). Timer handles are
 * negative so `cancel` knows which kind it holds.
 */
export function defaultScheduler(): FrameScheduler {
  const hasFrames = typeof requestAnimationFrame === 'function';
  const hidden = (): boolean => typeof document !== 'undefined' && document.hidden;
  return {
    request(cb) {
      if (hasFrames && !hidden()) return requestAnimationFrame(() => cb());
      return -(setTimeout(cb, hasFrames ? 250 : 16) as unknown as number);
    },
    cancel(h) {
      if (h < 0) clearTimeout(-h);
      else cancelAnimationFrame(h);
    },
  };
}

export interface FrameBatcher<T> {
  push(item: T): void;
  pushAll(items: readonly T[]): void;
  /** Flushes now (in the caller's turn) whatever is pending. */
  flushNow(): void;
  /** Items waiting for the next frame. */
  readonly pending: number;
  dispose(): void;
}

export function createFrameBatcher<T>(flush: (items: T[]) => void, scheduler: FrameScheduler = defaultScheduler()): FrameBatcher<T> {
  let queue: T[] = [];
  let handle: number | null = null;
  let disposed = false;

  const run = (): void => {
    handle = null;
    if (queue.length === 0) return;
    const items = queue;
    queue = [];
    flush(items);
  };

  const schedule = (): void => {
    if (handle === null && !disposed) handle = scheduler.request(run);
  };

  return {
    push(item) {
      if (disposed) return;
      queue.push(item);
      schedule();
    },
    pushAll(items) {
      if (disposed || items.length === 0) return;
      for (const item of items) queue.push(item);
      schedule();
    },
    flushNow() {
      if (handle !== null) scheduler.cancel(handle);
      run();
    },
    get pending() {
      return queue.length;
    },
    dispose() {
      disposed = true;
      if (handle !== null) scheduler.cancel(handle);
      handle = null;
      queue = [];
    },
  };
}

/** A scheduler whose frames the caller advances: for tests. */
export function manualScheduler(): FrameScheduler & { frame(): void; readonly scheduled: number } {
  let next = 1;
  const callbacks = new Map<number, () => void>();
  return {
    request(cb) {
      const h = next++;
      callbacks.set(h, cb);
      return h;
    },
    cancel(h) {
      callbacks.delete(h);
    },
    frame() {
      const due = [...callbacks.values()];
      callbacks.clear();
      for (const cb of due) cb();
    },
    get scheduled() {
      return callbacks.size;
    },
  };
}
