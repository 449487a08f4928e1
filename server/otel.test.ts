import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../core/otel/testing.js';
import { startServer } from './main.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-serve-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { staticDir: null, examplesDir: join(tmpdir(), 'hw-otel-no-examples') } as const;

describe('serve with the OTLP receiver', () => {
  it('shows an agent session posted to the receiver in the runs the window reads, with the same token after a restart', async () => {
    const dbPath = join(dir, 'h.db');
    const first = await startServer({ ...quiet, dbPath, port: 0, otelPort: 0, log: () => undefined });
    const token = first.otel!.token;
    await first.close();
    const server = await startServer({ ...quiet, dbPath, port: 0, otelPort: 0, log: () => undefined });
    try {
      expect(server.otel!.token).toBe(token);
      const posted = await fetch(`${server.otel!.endpoint}/v1/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: new Uint8Array(fixture('claude-code-logs', 'json')),
      });
      expect(posted.status).toBe(200);
      // The window's own token is not the ingest token, and the other way round.
      expect(server.token).not.toBe(token);
      const runs = (await (await fetch(`${server.origin}/api/runs`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as {
        items: { flow: string; flowName: string; status: string; errorCount: number; source: string | null }[];
      };
      expect(runs.items).toEqual([
        expect.objectContaining({
          source: 'runtime:claude-code',
          flow: 'external:claude-code',
          flowName: 'Claude Code session 7f3c9a2e',
          status: 'running',
          errorCount: 5,
        }),
      ]);
    } finally {
      await server.close();
    }
  });

  it('keeps serving the window when the OTLP port is taken, saying why', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const lines: string[] = [];
    const server = await startServer({ ...quiet, dbPath: join(dir, 'h.db'), port: 0, otelPort: port, log: (l) => lines.push(l) });
    try {
      expect(server.otel).toBeNull();
      expect(lines).toContain(
        `OpenTelemetry: no receiver: the OTLP receiver cannot listen on 127.0.0.1:${port}: the port is taken (another collector?); choose another with --otel-port or HIVEWATCH_OTEL_PORT`,
      );
      expect((await fetch(`${server.origin}/api/flows`, { headers: { authorization: `Bearer ${server.token}` } })).status).toBe(200);
    } finally {
      await server.close();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
