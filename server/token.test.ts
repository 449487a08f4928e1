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

  it('without --port a restart takes the port the database had last time; a taken port falls back to a free one', async () => {
    const dbPath = join(dir, 'p.db');
    const first = await startServer({ ...quiet, dbPath });
    const port = first.port;
    await first.close();
    const second = await startServer({ ...quiet, dbPath });
    expect(second.port).toBe(port);
    // The port is held (by the running second server): a third server on the same database moves.
    const logged: string[] = [];
    const third = await startServer({ ...quiet, dbPath, log: (line) => logged.push(line) });
    try {
      expect(third.port).not.toBe(port);
      expect(logged).toContain(`hivewatch: port ${port} (this database's last) is taken; using a free one`);
    } finally {
      await third.close();
      await second.close();
    }
    // An explicit --port 0 is a free port and is not remembered.
    const explicit = await startServer({ ...quiet, dbPath, port: 0 });
    const explicitPort = explicit.port;
    await explicit.close();
    const again = await startServer({ ...quiet, dbPath });
    try {
      expect(again.port).toBe(third.port);
      expect(explicitPort).toBeGreaterThan(0);
    } finally {
      await again.close();
    }
  });
});
