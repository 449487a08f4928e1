import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type HivewatchStore } from '../store/index.js';
import { tempDirs } from '../testing/temp-dirs.js';
import { decodeOtlp } from './receive/decode.js';
import { DEFAULT_QUIET_MS } from './receive/ingest.js';
import { startOtlpReceiver, type OtlpReceiver } from './receive/receiver.js';
import { fixture } from './testing.js';

/**
 * A session's final status comes within 15 s of its quiet period, and the default quiet period is
 * one an operator accepts (two minutes; docs/otel.md "Sessions"). The receiver's own timer is
 * faked (only setInterval: the HTTP server and the store run for real), its clock injected.
 */

const tempDir = tempDirs();
const open: { receiver: OtlpReceiver; store: HivewatchStore }[] = [];
afterEach(async () => {
  for (const { receiver, store } of open.splice(0)) {
    await receiver.close();
    await store.close();
  }
  vi.useRealTimers();
});

describe('quiet sessions are checked every few seconds', () => {
  it('the default quiet period is two minutes, and a quiet session ends within 15 s of it', async () => {
    expect(DEFAULT_QUIET_MS).toBe(120_000);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = await openStore({ path: join(tempDir('hw-quiet-check-'), 'hw.db') });
    let now = Date.UTC(2026, 10, 26, 10, 0, 0);
    const receiver = await startOtlpReceiver({ store, port: 0, token: 't', now: () => now });
    open.push({ receiver, store });
    const records = decodeOtlp('logs', 'json', fixture('claude-code-logs', 'json'));
    const runId = (await receiver.ingester.ingest(records, null)).runIds[0]!;
    const lastEventAt = now;

    now = lastEventAt + DEFAULT_QUIET_MS - 1;
    await vi.advanceTimersByTimeAsync(15_000);
    expect((await store.getRunRow(runId))!.status).toBe('running');

    now = lastEventAt + DEFAULT_QUIET_MS + 1;
    await vi.advanceTimersByTimeAsync(15_000);
    await expect.poll(async () => (await store.getRunRow(runId))!.status, { timeout: 10_000 }).not.toBe('running');
    // Its last prompt failed (a 401): the session ends failed with it.
    expect((await store.getRunRow(runId))!.status).toBe('failed');
  });
});
