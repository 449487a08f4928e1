import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../core/testing/temp-dirs.js';
import { startServer } from './main.js';

const temp = tempDirs();
const quiet = { staticDir: null, log: () => undefined, examplesDir: join(tmpdir(), 'hw-serve-no-examples'), userFlowsDir: null } as const;
const linux = process.platform === 'linux';
/** The process's OS threads (Linux); elsewhere 0, and the counts below compare equal. */
const threads = (): number => (linux ? readdirSync('/proc/self/task').length : 0);

describe('serve with read workers', () => {
  it('answers the window’s reads from its workers, and ends them when it closes', async () => {
    const before = threads();
    const server = await startServer({ ...quiet, dbPath: join(temp('hw-serve-readers-'), 'h.db'), port: 0, readWorkers: 2 });
    try {
      if (linux) expect(threads()).toBeGreaterThanOrEqual(before + 2);
      const get = (path: string): Promise<Response> => fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
      const answers = await Promise.all(['/api/runs', '/api/errors/counts?by=code', '/api/errors/groups?limit=10', '/api/issues?status=unresolved'].map(get));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(await answers[0]!.json()).toMatchObject({ items: [] });
    } finally {
      await server.close();
    }
    expect(threads()).toBeLessThanOrEqual(before);
  });

  it('refuses a read-worker count it cannot use, before it opens anything', async () => {
    await expect(startServer({ ...quiet, dbPath: join(temp('hw-serve-readers-'), 'h.db'), port: 0, readWorkers: 17 })).rejects.toThrow(
      'readWorkers must be a whole number from 0 (every read on the one connection) to 16, got 17',
    );
  });
});
