import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AlertDeliveryView } from '../core/service/api.js';
import { StallingReceiver } from '../core/service/alerts/delivery/testing.js';
import { FAILING_FLOW, TestReceiver } from '../core/service/alerts/testing.js';
import { waiting } from '../core/testing/waiting.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * The real `hivewatch serve` with three alert rules on every failed run: one receiver that
 * accepts and never answers, one that answers 200 and then streams its body forever, and a
 * healthy one, all real HTTP servers on 127.0.0.1. For each failed run the healthy receiver gets
 * its alert while the hanging receiver still holds (or has not yet been sent) that run's POST:
 * it did not wait behind it, whatever the machine's speed. Each endless answer is closed by
 * `serve` after a few kilobytes, and `serve`'s resident memory, read from /proc after each one,
 * stays flat. `serve`'s own 5 s deadline then ends the hanging POST, which the delivery log shows.
 */

const RUNS = 6;
const MiB = 1_024 * 1_024;

let server: ServerHandle;
const hanging = new StallingReceiver('hang');
const endless = new StallingReceiver('endless');
const healthy = new TestReceiver();
const urls = { hanging: '', endless: '', healthy: '' };

beforeAll(async () => {
  urls.hanging = await hanging.start();
  urls.endless = await endless.start();
  urls.healthy = await healthy.start();
  server = await startServer({ flows: { 'fails.prose': FAILING_FLOW } });
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([hanging.stop(), endless.stop(), healthy.stop()]);
});

/** `serve`'s resident set (VmRSS, kB in /proc) in bytes. */
function serveRss(): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'));
  if (!line) throw new Error(`no VmRSS for pid ${server.pid}`);
  return Number(line[1]) * 1_024;
}

describe('alert deliveries that no receiver can stall, in serve', () => {
  it('a hanging and an endless-body receiver beside a healthy one: each alert reaches the healthy one, serve reads a few KB and stays flat', async () => {
    for (const [name, url] of Object.entries(urls)) {
      await server.api('POST', '/api/alerts/rules', { when: 'run-failed', webhook: `${url}/${name}`, throttle: '0' });
    }
    const rss = [serveRss()];
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const runId = await server.startRun('user/fails.prose', { virtualClock: true });
      runIds.push(runId);
      await server.waitForRun(runId, ['failed']);
      await vi.waitFor(() => healthy.bodies().some((b) => b.subject === runId) || waiting(`the healthy receiver's alert for ${runId}`), { timeout: 15_000 });
      // The hanging receiver's POST of this run is still open, or still waiting its turn.
      const held = hanging.connectionOf(runId);
      expect(held === undefined || !held.closed, `the hanging POST of ${runId} ended before the healthy alert arrived`).toBe(true);
      await vi.waitFor(() => endless.connectionOf(runId)?.closed || waiting(`serve to close the endless answer to ${runId}`), { timeout: 15_000 });
      rss.push(serveRss());
    }

    expect(healthy.bodies().map((b) => b.subject)).toEqual(runIds);
    expect(endless.connections).toHaveLength(RUNS);
    // What the endless receiver got into its socket before serve closed it: the kernels' buffers.
    expect(endless.connections.every((c) => c.closed && c.offered < 32 * MiB)).toBe(true);
    const growth = Math.max(...rss) - rss[0]!;
    expect(growth, `serve's RSS by point (MiB): ${rss.map((r) => (r / MiB).toFixed(1)).join(', ')}`).toBeLessThan(64 * MiB);

    // serve's deadline ends the first hanging POST (5 s) and closes its socket; its delivery
    // waits for its retry. The other receivers' deliveries were all sent.
    await vi.waitFor(() => hanging.connectionOf(runIds[0]!)?.closed || waiting('serve to give up the first hanging POST'), { timeout: 20_000 });
    const log = await vi.waitFor(
      async () => {
        const views = await server.api<AlertDeliveryView[]>('GET', '/api/alerts/deliveries?limit=100');
        return views.some((v) => v.status === 'failed') ? views : waiting('the hanging delivery recorded as failed');
      },
      { timeout: 20_000 },
    );
    // Each hanging POST is held up to the deadline in turn: by now one or more have ended so.
    const failedOnes = log.filter((v) => v.status === 'failed');
    expect(failedOnes.length).toBeGreaterThan(0);
    expect(failedOnes.every((v) => v.responseCode === null && v.lastError === 'no answer within 5000 ms')).toBe(true);
    expect(log.filter((v) => v.status === 'sent').map((v) => v.responseCode)).toEqual(Array.from({ length: 2 * RUNS }, () => 200));
  });
});
