import { describe, expect, it } from 'vitest';
import type { HivewatchApi } from '../../core/service/api.js';
import { askCompare, readRun, takeRun } from './run-reads.js';

/** A run of `count` events behind an api that records each read. */
function runApi(runId: string, count: number) {
  const asked: string[] = [];
  const events = Array.from({ length: count }, (_, i) => ({ runId, seq: i + 1, ts: i, wall: i, type: 'checkpointSaved' }));
  const api = {
    getRun: ({ runId: id }: { runId: string }) => {
      asked.push(`getRun ${id}`);
      return Promise.resolve(id === runId ? { run: { id }, lastSeq: count } : null);
    },
    getEvents: ({ runId: id, afterSeq = 0, limit = 1_000 }: { runId: string; afterSeq?: number; limit?: number }) => {
      asked.push(`getEvents ${id} ${afterSeq}`);
      return id === runId ? Promise.resolve(events.filter((e) => e.seq > afterSeq).slice(0, limit)) : Promise.reject(new Error(`404 no run ${id}`));
    },
  } as unknown as HivewatchApi;
  return { api, asked };
}

describe("a run's first reads", () => {
  it('ask the detail and the first page of the journal in one turn, then the rest at once', async () => {
    const { api, asked } = runApi('run_a', 1_500);
    const read = readRun(api, 'run_a');
    // Both in this turn: one batch.
    expect(asked).toEqual(['getRun run_a', 'getEvents run_a 0']);
    expect((await read)?.journal.map((e) => e.seq)).toEqual(Array.from({ length: 1_500 }, (_, i) => i + 1));
    expect(asked).toEqual(['getRun run_a', 'getEvents run_a 0', 'getEvents run_a 1000']);
  });

  it('of a run that is not there are null, its events’ 404 swallowed', async () => {
    const { api } = runApi('run_other', 3);
    expect(await readRun(api, 'run_missing')).toBeNull();
  });

  it("asked for Compare at the window's start are taken once", async () => {
    const { api, asked } = runApi('run_left', 3);
    askCompare(api, 'run_left', 'run_right');
    expect(await takeRun(api, 'run_left')).toMatchObject({ lastSeq: 3 });
    expect(await takeRun(api, 'run_right')).toBeNull();
    expect(asked).toEqual(['getRun run_left', 'getRun run_right']);
    await takeRun(api, 'run_left');
    expect(asked).toHaveLength(3);
  });
});
