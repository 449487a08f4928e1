import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_AGENT_PATH } from '../runtimes/fake.js';
import { writeCliStandIn } from '../testing/cli-stand-in.js';
import { EXAMPLES_DIR } from '../service/conformance.suite.js';
import { createHivewatchService } from '../service/service.js';
import { openStore } from '../store/index.js';
import { decodeOtlp } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';
import { startOtlpReceiver } from './receive/receiver.js';
import { fixture, UNHURRIED_QUEUE } from './testing.js';

/**
 * A claude-code preset Hivewatch runs reports its telemetry to the host's
 * receiver, marked with the attempt (OTEL_RESOURCE_ATTRIBUTES), and the API errors it retried
 * internally are linked to that attempt. The CLI is the fake agent, a real subprocess exporting
 * OTLP/HTTP JSON as Claude Code would.
 */

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'hw-otel-preset-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  const flows = join(dir, 'flows');
  mkdirSync(flows);
  const store = await openStore({ path: join(dir, 'hw.db') });
  closers.push(() => store.close());
  return { dir, flows, store };
}

describe('presets feed the receiver', () => {
  it('links the API errors a claude-code attempt reported to that attempt', async () => {
    const { dir, flows, store } = await setup();
    writeFileSync(
      join(flows, 'claude.prose'),
      `agent claude:\n  runtime: "claude-code"\n  command: "${writeCliStandIn(dir, 'claude', { path: FAKE_AGENT_PATH })}"\n\nsession: claude\n  prompt: "fix it"\n`,
    );
    const receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
    closers.push(() => receiver.close());
    const service = await createHivewatchService({
      store,
      examplesDir: EXAMPLES_DIR,
      userFlowsDir: flows,
      telemetry: () => ({ endpoint: receiver.endpoint, token: receiver.token }),
    });
    closers.push(() => service.close());
    const { runId } = await service.startRun({ flow: 'user/claude.prose' });
    const result = await service.whenFinished(runId);
    expect(result?.status).toBe('completed');

    const task = (await store.getRun(runId))!.tasks[0]!;
    // The exporter it was given is on record from the spawn: its silence is watched from the attempt's start.
    expect((await store.getRun(runId))!.attempts[0]!.telemetryOrigin).toBe('runtime:claude-code');
    expect((await store.getEvents(runId)).find((e) => e.type === 'attemptProcess')).toMatchObject({ telemetry: 'runtime:claude-code' });
    const links = await store.attemptTelemetry(runId);
    expect(links).toEqual([
      {
        taskId: task.taskId,
        attempt: 1,
        runId: expect.stringMatching(/^ext-claude-code-/),
        sessionId: expect.stringMatching(/^fake-\d+$/),
        origin: 'runtime:claude-code',
      },
    ]);
    const external = (await store.getRun(links[0]!.runId))!;
    expect(external.attempts.map((a) => [a.attempt, a.status, a.errorCode])).toEqual([
      [1, 'failed', 'RUNTIME_RATE_LIMIT'],
      [2, 'succeeded', null],
    ]);
    expect(external.attempts[0]!.error).toMatchObject({
      code: 'RUNTIME_RATE_LIMIT',
      origin: 'runtime:claude-code',
      context: { hivewatch: { runId, taskId: task.taskId, attempt: 1 } },
    });
    // The CLI's retry is part of the attempt: no error occurrence of its own anywhere.
    expect((await store.listErrors({ limit: 5 })).errors).toEqual([]);
    // The host's own run is untouched by the CLI's internal retry: one attempt, no error of its own.
    expect((await store.getRun(runId))!.run).toMatchObject({ attemptCount: 1, errorCount: 0 });
    // The window's run detail shows the CLI's calls inside the attempt.
    const detail = await service.getRun({ runId });
    expect(detail!.tasks[0]!.attempts[0]!.telemetry).toEqual([
      {
        runId: links[0]!.runId,
        sessionId: links[0]!.sessionId,
        origin: 'runtime:claude-code',
        apiCalls: 2,
        errors: 1,
        calls: [
          { n: 1, status: 'failed', code: 'RUNTIME_RATE_LIMIT', message: external.attempts[0]!.error!.message },
          { n: 2, status: 'succeeded', code: null, message: null },
        ],
      },
    ]);
  });

  it("journals no exporter for a CLI started without one: no receiver, or the agent's env: turned its telemetry off", async () => {
    const { dir, flows, store } = await setup();
    const command = writeCliStandIn(dir, 'claude', { path: FAKE_AGENT_PATH });
    writeFileSync(join(flows, 'plain.prose'), `agent claude:\n  runtime: "claude-code"\n  command: "${command}"\n\nsession: claude\n  prompt: "fix it"\n`);
    writeFileSync(
      join(flows, 'off.prose'),
      `agent claude:\n  runtime: "claude-code"\n  command: "${command}"\n  env: ["CLAUDE_CODE_ENABLE_TELEMETRY=0"]\n\nsession: claude\n  prompt: "fix it"\n`,
    );
    const receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0, queue: UNHURRIED_QUEUE });
    closers.push(() => receiver.close());
    let target: { endpoint: string; token: string } | null = null;
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: flows, telemetry: () => target });
    closers.push(() => service.close());
    const exporterOf = async (flow: string) => {
      const { runId } = await service.startRun({ flow });
      expect((await service.whenFinished(runId))?.status).toBe('completed');
      const process = (await store.getEvents(runId)).find((e) => e.type === 'attemptProcess');
      expect(process).toBeDefined();
      return { row: (await store.getRun(runId))!.attempts[0]!.telemetryOrigin, event: process && 'telemetry' in process ? process.telemetry : undefined };
    };
    expect(await exporterOf('user/plain.prose')).toEqual({ row: null, event: undefined });
    target = { endpoint: receiver.endpoint, token: receiver.token };
    expect(await exporterOf('user/off.prose')).toEqual({ row: null, event: undefined });
    expect(await exporterOf('user/plain.prose')).toEqual({ row: 'runtime:claude-code', event: 'runtime:claude-code' });
  });

  it('answers a cancel, Retry now, retry or resume of an external run clearly', async () => {
    const { flows, store } = await setup();
    await new OtelIngester(store).ingest(decodeOtlp('logs', 'json', fixture('codex-cli-logs', 'json')), 'x');
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: flows });
    closers.push(() => service.close());
    const runId = (await store.listRuns()).runs[0]!.id;
    const ack = await service.cancelRun({ runId });
    expect(ack).toMatchObject({
      accepted: false,
      message: `run ${runId} is an agent session seen through its telemetry (Codex CLI session 0199a5e2); Hivewatch did not start it and cannot cancel it: stop the agent where it runs`,
    });
    // The external run's tasks are named by the CLI's prompt ids; the command is refused for the run.
    expect(await service.skipBackoff({ runId, taskId: '1:0' })).toMatchObject({
      accepted: false,
      message: `run ${runId} is an agent session seen through its telemetry (Codex CLI session 0199a5e2); Hivewatch did not start it and cannot skip its backoff: the agent retries on its own schedule`,
    });
    await expect(service.retryRun({ runId })).rejects.toMatchObject({
      status: 409,
      apiCode: 'external_run',
      message: `run ${runId} is an agent session seen through its telemetry (Codex CLI session 0199a5e2); Hivewatch did not start it and cannot retry it: start the agent again where it runs`,
    });
    await expect(service.resumeRun({ runId })).rejects.toMatchObject({ status: 409, apiCode: 'external_run' });
  });
});
