import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../base/errors/hivewatch-error.js';
import { createLimiter } from './limiter.js';

describe('createLimiter', () => {
  it('grants slots first come, first served and never more than its size', async () => {
    const limiter = createLimiter(2);
    const order: string[] = [];
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    const c = limiter.acquire().then((release) => (order.push('c'), release));
    const d = limiter.acquire().then((release) => (order.push('d'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    const releaseC = await c;
    expect(order).toEqual(['c']);
    b();
    (await d)();
    releaseC();
    expect(order).toEqual(['c', 'd']);
  });

  it('a waiter whose signal aborts leaves the queue with CancelledError', async () => {
    const limiter = createLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(CancelledError);
    held();
    const next = await limiter.acquire();
    next();
  });

  it('rejects a size below one with an exact message', () => {
    expect(() => createLimiter(0)).toThrow('concurrency must be a whole number of at least 1, got 0');
  });
});
