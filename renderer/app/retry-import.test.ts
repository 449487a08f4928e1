import { describe, expect, it } from 'vitest';
import { failedModuleUrl, retryImport } from './retry-import.js';

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

  it('retries a chunk the browser remembers as failed under a fresh URL', async () => {
    const fetched: string[] = [];
    const cachedFailure = async (): Promise<{ Page: string }> => {
      throw new TypeError('Failed to fetch dynamically imported module: http://127.0.0.1:4123/assets/ErrorsPage-AQn898NW.js');
    };
    const reimport = async (url: string): Promise<unknown> => {
      fetched.push(url);
      if (fetched.length < 2) throw new TypeError(`Failed to fetch dynamically imported module: ${url}`);
      return { Page: 'errors' };
    };
    await expect(retryImport(cachedFailure, 4, async () => undefined, reimport)).resolves.toEqual({ Page: 'errors' });
    expect(fetched).toHaveLength(2);
    for (const url of fetched) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:4123\/assets\/ErrorsPage-AQn898NW\.js\?retry=\S+$/);
    expect(fetched[0]).not.toBe(fetched[1]);
  });

  it('reads the chunk URL from the browser’s message, and nothing from any other error', () => {
    expect(failedModuleUrl(new TypeError('Failed to fetch dynamically imported module: http://h:1/assets/X-1.js'))).toBe('http://h:1/assets/X-1.js');
    expect(failedModuleUrl(new Error('boom'))).toBeNull();
  });
});
