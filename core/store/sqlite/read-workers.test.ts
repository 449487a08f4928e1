import { describe, expect, it } from 'vitest';
import { DEFAULT_READ_WORKERS, READ_WORKERS_ENV, readWorkersOf } from './read-workers.js';

describe('HIVEWATCH_READ_WORKERS', () => {
  it('is the default when unset or blank, and a whole number from 0 to 16 otherwise', () => {
    expect(readWorkersOf({})).toBe(DEFAULT_READ_WORKERS);
    expect(readWorkersOf({ [READ_WORKERS_ENV]: '  ' })).toBe(DEFAULT_READ_WORKERS);
    expect(readWorkersOf({ [READ_WORKERS_ENV]: '0' })).toBe(0);
    expect(readWorkersOf({ [READ_WORKERS_ENV]: ' 3 ' })).toBe(3);
    expect(readWorkersOf({ [READ_WORKERS_ENV]: '16' })).toBe(16);
  });

  it.each(['two', '-1', '1.5', '17', '1e1'])('refuses %j, saying what it takes', (text) => {
    expect(() => readWorkersOf({ [READ_WORKERS_ENV]: text })).toThrow(
      `HIVEWATCH_READ_WORKERS must be a whole number from 0 (every read on the one connection) to 16, got "${text}"`,
    );
  });
});
