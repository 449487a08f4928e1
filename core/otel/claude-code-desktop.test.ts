import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../agents-real/recording/fixtures-io.js';
import type { HivewatchEvent } from '../base/events.js';
import { openStore, type HivewatchStore } from '../store/index.js';
import { tempDirs } from '../testing/temp-dirs.js';
import { decodeOtlp, type TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';

/**
 * The Claude Code desktop app's Code tab exports the CLI's events under `service.name`
 * `claude-code-desktop`. Its session reads as Claude Code's — the same tasks, calls and codes —
 * under its own name and source, and the ids that find a request elsewhere (`request_id`,
 * `client_request_id`, `message.uuid`, `workflow.*`) ride on the errors it reports.
 */

const tempDir = tempDirs();
const stores: HivewatchStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** Claude Code 2.1.332's 429 run with 2 retries (a prompt, then an api_error after 3 requests), as decoded. */
function recorded(): TelemetryRecord[] {
  const f = readFixture('claude-code', 'rate-limit.json-out.otlp-json.retries-2')!;
  return f.exports.filter((e) => e.signal === 'logs').flatMap((e) => decodeOtlp('logs', 'json', e.payload));
}

const asDesktop = (records: TelemetryRecord[]): TelemetryRecord[] =>
  records.map((r) => ({ ...r, resource: { ...r.resource, 'service.name': 'claude-code-desktop' } }));

async function ingested(records: TelemetryRecord[]): Promise<{ store: HivewatchStore; runId: string }> {
  const store = await openStore({ path: join(tempDir('hw-desktop-'), 'hw.db') });
  stores.push(store);
  const ingester = new OtelIngester(store, { now: () => Date.UTC(2026, 10, 29, 4, 0, 0) });
  const runIds = (await ingester.ingest(records, null)).runIds;
  expect(runIds).toHaveLength(1);
  return { store, runId: runIds[0]! };
}

describe('claude-code-desktop', () => {
  it('reads as Claude Code: the same tasks, calls and codes as the CLI, named "Claude Code desktop session", its source the desktop app', async () => {
    const cli = await ingested(recorded());
    const desktop = await ingested(asDesktop(recorded()));
    const shape = async ({ store, runId }: { store: HivewatchStore; runId: string }) => {
      const d = (await store.getRun(runId))!;
      return { flow: d.run.flow, tasks: d.tasks.map((t) => [t.name, t.status]), attempts: d.attempts.map((a) => [a.status, a.errorCode]) };
    };
    expect(await shape(desktop)).toEqual(await shape(cli));
    expect((await shape(desktop)).flow).toBe('external:claude-code');
    expect((await shape(desktop)).attempts).toContainEqual(['failed', 'RUNTIME_RATE_LIMIT']);

    const started = (await desktop.store.getEvents(desktop.runId)).find((e): e is Extract<HivewatchEvent, { type: 'runStarted' }> => e.type === 'runStarted')!;
    expect(started.flowName).toMatch(/^Claude Code desktop session [0-9a-f]{8}$/);
    expect(started.external?.source).toBe('claude-code-desktop 2.1.332');
    expect((await desktop.store.getRunRow(desktop.runId))!.flowName).toBe(started.flowName);
    expect((await cli.store.getRunRow(cli.runId))!.flowName).toMatch(/^Claude Code session [0-9a-f]{8}$/);
  });

  it("an error carries its request's ids: the provider's request id, the client's, and the workflow run it ran in", async () => {
    const records = asDesktop(recorded()).map((r) =>
      r.attributes['event.name'] === 'api_error'
        ? {
            ...r,
            attributes: { ...r.attributes, client_request_id: 'cli-req-7' },
            resource: { ...r.resource, 'workflow.run_id': '9123', 'workflow.name': 'nightly fix' },
          }
        : r,
    );
    const { store, runId } = await ingested(records);
    // The recording was sent from inside a preset attempt: its failed call is an attempt of the session, not an occurrence.
    const failed = (await store.getRun(runId))!.attempts.filter((a) => a.status === 'failed');
    expect(failed.map((a) => a.errorCode)).toEqual(['RUNTIME_RATE_LIMIT']);
    expect(failed[0]!.error?.context).toMatchObject({
      requestId: 'req_stub_0001',
      clientRequestId: 'cli-req-7',
      workflow: { runId: '9123', name: 'nightly fix' },
    });
  });
});
