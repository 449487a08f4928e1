import { describe, expect, it } from 'vitest';
import { retryImport } from './retry-import.js';

describe('retryImport', () => {
  it('tries a failed chunk load again, then gives up with the last error', async () => {
    const waits: number[] = [];
    const wait = async (n: number): Promise<void> => void waits.push(n);
    let calls = 0;
    const flaky = async (): Promise<string> => {
      calls++;
      if (calls < 3) throw new TypeError(`Failed to fetch dynamically imported module (${calls})`);
      return 'module';
    };
    await expect(retryImport(flaky, 4, wait)).resolves.toBe('module');
    expect(waits).toEqual([1, 2]);

    calls = -10;
    await expect(retryImport(flaky, 2, wait)).rejects.toThrow('Failed to fetch dynamically imported module (-8)');
  });
});
