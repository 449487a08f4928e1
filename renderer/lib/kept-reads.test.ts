import { describe, expect, it } from 'vitest';
import { KEPT_MS, keepRead, takeKept, takeRead } from './kept-reads.js';

describe('kept reads', () => {
  it('are handed out once, then a read asks afresh', async () => {
    keepRead('a', Promise.resolve('early'), 1_000);
    expect(await takeRead('a', () => Promise.resolve('fresh'), 1_500)).toBe('early');
    expect(await takeRead('a', () => Promise.resolve('fresh'), 1_600)).toBe('fresh');
  });

  it('are never handed out stale', async () => {
    keepRead('b', Promise.resolve('early'), 1_000);
    expect(await takeRead('b', () => Promise.resolve('fresh'), 1_001 + KEPT_MS)).toBe('fresh');
    keepRead('b', Promise.resolve('early'), 1_000);
    expect(await takeRead('b', () => Promise.resolve('fresh'), 1_000 + KEPT_MS)).toBe('early');
  });

  it('that failed are dropped: a screen mounting later reads afresh', async () => {
    keepRead('e', Promise.reject(new Error('the server is away')), 1_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(takeKept('e', 1_100)).toBeNull();
  });

  it('that fail with nobody to take them raise no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      keepRead('c', Promise.reject(new Error('the server is away')), 1_000);
      // A later keep drops it once stale; nobody ever takes it.
      keepRead('d', Promise.resolve('other'), 1_001 + KEPT_MS);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(takeKept('c', 1_001 + KEPT_MS)).toBeNull();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
