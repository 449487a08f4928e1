import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OtelIngester } from '../../otel/receive/ingest.js';
import { claudeCodeLogs } from '../../otel/testing.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../service.js';

/**
 * `cancelRun` of an agent session waiting for a person's approval (docs/otel.md "Waiting for
 * approval"): a session Hivewatch did not start is stopped watching (the run ends cancelled, the
 * prompt closed); a session a Hivewatch attempt sent names the run to cancel instead, since
 * cancelling that run is what stops its agent. Real SQLite store, the ingester on an injected clock.
 */

const tempDir = tempDirs();
const MINUTE = 60_000;
// The service's cancel reads the wall clock: the prompt opened ten minutes before it.
const T0 = Date.now() - 10 * MINUTE;

const opened = (session: string): ReturnType<typeof claudeCodeLogs> =>
  claudeCodeLogs(
    [
      ['user_prompt', { 'prompt.id': 'p-1' }],
      ['hook_execution_start', { 'prompt.id': 'p-1', hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
    ],
    session,
    T0,
  );

describe('cancelling a session waiting for approval through the service', () => {
  let store: HivewatchStore | null = null;
  let service: HivewatchService | null = null;
  afterEach(async () => {
    await service?.close();
    await store?.close();
    service = null;
    store = null;
  });

  async function setUp(): Promise<{ store: HivewatchStore; service: HivewatchService; ingester: OtelIngester }> {
    const dir = tempDir('hw-approval-cancel-');
    store = await openStore({ path: join(dir, 'hw.db') });
    service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: join(dir, 'flows'), clock: 'virtual', alerts: false });
    return { store, service, ingester: new OtelIngester(store, { now: () => T0 + 3000, quietMs: 2 * MINUTE }) };
  }

  it('stops watching a session Hivewatch did not start: accepted, the run cancelled, the prompt closed', async () => {
    const { store, service, ingester } = await setUp();
    const [runId] = (await ingester.ingest(opened('1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9'), null)).runIds;
    expect(await store.getRunRow(runId!)).toMatchObject({ status: 'running', approvalLabel: 'Bash' });
    const ack = await service.cancelRun({ runId: runId!, reason: 'nobody will answer it' });
    expect(ack).toMatchObject({ accepted: true });
    const row = (await store.getRunRow(runId!))!;
    expect(row).toMatchObject({ status: 'cancelled', approvalSince: null, approvalLabel: null });
    // The prompt opened at T0 + 2 s: the cancel closed it at least ten minutes less those 2 s later.
    expect(row.approvalWaitMs).toBeGreaterThanOrEqual(10 * MINUTE - 2000);
    expect((await store.listRuns({ status: ['waiting-approval'] })).runs).toEqual([]);
  });

  it('refuses a session a Hivewatch attempt sent, naming the run whose cancel stops its agent; nothing is journaled', async () => {
    const { store, service, ingester } = await setUp();
    const linked = opened('2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d').map((r) => ({
      ...r,
      resource: { ...r.resource, 'hivewatch.run_id': 'run-preset', 'hivewatch.task_id': '1:0', 'hivewatch.attempt': 1 },
    }));
    const [runId] = (await ingester.ingest(linked, null)).runIds;
    expect(await store.getRunRow(runId!)).toMatchObject({ status: 'running', approvalLabel: 'Bash' });
    const events = (await store.getEvents(runId!)).length;
    const ack = await service.cancelRun({ runId: runId! });
    expect(ack).toMatchObject({
      accepted: false,
      message: `run ${runId} is the telemetry of attempt 1 of task 1:0 of run run-preset, which Hivewatch started: cancel run run-preset to stop its agent`,
    });
    expect(await store.getRunRow(runId!)).toMatchObject({ status: 'running', approvalLabel: 'Bash' });
    expect(await store.getEvents(runId!)).toHaveLength(events);
  });
});
