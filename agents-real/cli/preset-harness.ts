import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../core/otel/receive/receiver.js';
import { EXAMPLES_DIR } from '../../core/service/conformance.suite.js';
import { createHivewatchService } from '../../core/service/service.js';
import type { HivewatchService } from '../../core/service/service-types.js';
import { openHostStore } from '../../core/service/history/open.js';
import type { HivewatchStore } from '../../core/store/index.js';
import { startAnthropicStub, type AnthropicStep } from '../stubs/anthropic-stub.js';
import { startEgressGuard, type EgressGuard } from '../stubs/egress-guard.js';
import { startOpenAiStub, type OpenAiStep } from '../stubs/openai-stub.js';
import type { ProviderStub } from '../stubs/provider-stub.js';
import { makeTempHome, type TempHome } from './run-cli.js';

/**
 * A preset run with the real CLI, end to end: a flow whose agent runs
 * the pinned CLI through its preset (`runtime: "claude-code"` / `"codex-cli"`, `command:` the
 * cached binary), started by a real service on a real SQLite store, whose telemetry goes to a
 * real OTLP receiver of that store, against the provider stub, on loopback only (the egress
 * guard). The engine's clock is virtual, so its rate-limit backoffs (30 s, 60 s, …) pass at once;
 * the CLIs run in real time.
 */

export interface PresetWorld {
  store: HivewatchStore;
  service: HivewatchService;
  receiver: OtlpReceiver;
  stub: ProviderStub;
  guard: EgressGuard;
  home: TempHome;
  /** A folder outside any git repository (the preset must add --skip-git-repo-check for Codex). */
  outside: string;
  /** Writes `user/<name>.prose` and runs it to its end; returns the run id. */
  run(name: string, source: string): Promise<string>;
  close(): Promise<void>;
}

export async function startPresetWorld(cli: 'claude-code' | 'codex-cli', script: AnthropicStep[] | OpenAiStep[]): Promise<PresetWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'hw-preset-real-'));
  const flows = join(dir, 'flows');
  const outside = join(dir, 'not-a-repository');
  mkdirSync(flows);
  mkdirSync(outside);
  const store = await openHostStore({ path: join(dir, 'hw.db') });
  const receiver = await startOtlpReceiver({ store, port: 0, sweepEveryMs: 0 });
  const stub = cli === 'claude-code' ? await startAnthropicStub(script as AnthropicStep[]) : await startOpenAiStub(script as OpenAiStep[]);
  const guard = await startEgressGuard();
  const home = makeTempHome();
  const service = await createHivewatchService({
    store,
    examplesDir: EXAMPLES_DIR,
    userFlowsDir: flows,
    clock: 'virtual',
    telemetry: () => ({ endpoint: receiver.endpoint, token: receiver.token }),
  });
  return {
    store,
    service,
    receiver,
    stub,
    guard,
    home,
    outside,
    async run(name, source) {
      writeFileSync(join(flows, `${name}.prose`), source);
      const { runId } = await service.startRun({ flow: `user/${name}.prose` });
      await service.whenFinished(runId);
      return runId;
    },
    async close() {
      await service.close();
      await receiver.close();
      await Promise.all([stub.close(), guard.close()]);
      await store.close();
      home.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `env: [...]` of a flow's agent: every value as one quoted entry. */
export function envList(env: Record<string, string>): string {
  return `[${Object.entries(env)
    .map(([k, v]) => JSON.stringify(`${k}=${v}`))
    .join(', ')}]`;
}

/** Waits (polling the store, never sleeping) until the telemetry of `runId`'s attempts is in. */
export async function linkedSessions(store: HivewatchStore, runId: string, expected: number): Promise<Awaited<ReturnType<HivewatchStore['attemptTelemetry']>>> {
  await vi.waitFor(
    async () => {
      const links = await store.attemptTelemetry(runId);
      if (links.length < expected) throw new Error(`${links.length} of ${expected} linked sessions so far`);
    },
    { timeout: 30_000, interval: 100 },
  );
  return store.attemptTelemetry(runId);
}
