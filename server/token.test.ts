import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from './main.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-token-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { staticDir: null, log: () => undefined, examplesDir: join(tmpdir(), 'hw-token-no-examples') } as const;

describe('the browser shell token', () => {
  it('is the database’s own: a restart on the same database accepts the old link', async () => {
    const dbPath = join(dir, 'h.db');
    const first = await startServer({ ...quiet, dbPath, port: 0 });
    const token = first.token;
    await first.close();
    const second = await startServer({ ...quiet, dbPath, port: 0 });
    try {
      expect(second.token).toBe(token);
      const response = await fetch(`${second.origin}/api/flows`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
    } finally {
      await second.close();
    }
    const other = await startServer({ ...quiet, dbPath: join(dir, 'other.db'), port: 0 });
    expect(other.token).not.toBe(token);
    await other.close();
  });
});
