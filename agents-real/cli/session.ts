import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resourceAttributes } from '../../core/runtimes/presets/telemetry-env.js';
import { startAnthropicStub, type AnthropicStep } from '../stubs/anthropic-stub.js';
import { claudeArgs, claudeEnv, claudeSettings, claudeSteps } from './claude.js';
import { codexArgs, codexConfigToml, codexEnv, codexLanes, codexSteps } from './codex.js';
import { startEgressGuard } from '../stubs/egress-guard.js';
import type { CliInstall } from './install.js';
import { startOpenAiStub, type OpenAiStep } from '../stubs/openai-stub.js';
import { startOtlpCapture, type CapturedExport } from '../otlp/otlp-capture.js';
import type { ProviderStub, StubRequest } from '../stubs/provider-stub.js';
import { baseEnv, makeTempHome, runCli, type CliResult } from './run-cli.js';
import { runId, type RunSpec } from '../specs.js';

/**
 * One run, start to finish: the provider stub playing the scenario, the OTLP capture, the egress
 * guard, a fresh home, the CLI; then everything they saw, and nothing left behind (servers
 * closed, home removed, the CLI's process group ended).
 */

export const OTLP_TOKEN = 'hivewatch-ingest-token-not-a-secret';

/** The attempt a preset would name in OTEL_RESOURCE_ATTRIBUTES; the run id needs percent-encoding. */
const ATTEMPT_IDENTITY = { runId: 'run 7/a', taskId: 'task-1', attempt: 2 };

/** How long after its hanging request the harness ends Codex, which no setting of its own bounds. */
const HANG_KILL_AFTER_MS = 6_000;

export interface RunRecord {
  id: string;
  spec: RunSpec;
  /** Epoch ms when the run began (a reset time in the CLI's words is read against it). */
  startedAtMs: number;
  /** What the provider stub was told to answer, step by step (the last step repeats). */
  script: readonly unknown[];
  cliVersion: string;
  /** The command line with the temp home written as `$HOME`. */
  argv: string[];
  /** The variables the CLI got beyond the base ones (PATH, HOME, XDG_*, TMPDIR, LANG, TZ…), secrets redacted. */
  env: Record<string, string>;
  /** Codex's config.toml, when there is one. */
  configToml: string | null;
  result: CliResult;
  apiRequests: StubRequest[];
  otherRequests: StubRequest[];
  otlp: CapturedExport[];
  egress: string[];
  home: string;
}

export interface RunOptions {
  /** A fixed home for the run (the recorder's); default a fresh temp directory. */
  homeAt?: string;
  /** Default 2 minutes; slow specs get 10. */
  deadlineMs?: number;
  /** Keep the home instead of removing it (debugging). */
  keepHome?: boolean;
}

const SECRET_VARIABLES = /KEY|TOKEN|HEADERS|SECRET/;

function redactEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, SECRET_VARIABLES.test(k) ? '<redacted>' : v]));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export async function runSpec(cli: Extract<CliInstall, { ok: true }>, spec: RunSpec, options: RunOptions = {}): Promise<RunRecord> {
  const now = Date.now();
  const script = spec.cli === 'claude-code' ? claudeSteps(spec.scenario, now) : codexSteps(spec.scenario, now);
  const stub: ProviderStub =
    spec.cli === 'claude-code' ? await startAnthropicStub(script as AnthropicStep[]) : await startOpenAiStub(script as OpenAiStep[], codexLanes(spec.scenario));
  const capture = await startOtlpCapture({ token: OTLP_TOKEN });
  const guard = await startEgressGuard();
  const home = makeTempHome(options.homeAt);
  try {
    const context = { stubUrl: stub.url, otlpUrl: capture.url, otlpToken: OTLP_TOKEN, resourceAttributes: resourceAttributes(ATTEMPT_IDENTITY) };
    let extra: Record<string, string>;
    let args: string[];
    let configToml: string | null = null;
    if (spec.cli === 'claude-code') {
      extra = { ...claudeEnv(spec, context), CLAUDE_CONFIG_DIR: join(home.root, '.claude') };
      const settings = claudeSettings(spec.scenario);
      const settingsPath = settings === null ? undefined : join(home.root, 'claude-settings.json');
      if (settingsPath !== undefined) writeFileSync(settingsPath, JSON.stringify(settings));
      args = claudeArgs(spec, settingsPath);
    } else {
      const codexHome = join(home.root, '.codex');
      mkdirSync(codexHome, { recursive: true });
      configToml = codexConfigToml(spec, context);
      writeFileSync(join(codexHome, 'config.toml'), configToml);
      extra = codexEnv(spec, context, codexHome);
      args = codexArgs(spec);
    }
    // Codex has no setting that bounds a request without an answer; Claude Code's API_TIMEOUT_MS does.
    const killWhen = spec.scenario === 'hang' && spec.cli === 'codex-cli' ? stub.reached(1).then(() => delay(HANG_KILL_AFTER_MS)) : undefined;
    const result = await runCli({
      command: cli.bin,
      args,
      cwd: home.work,
      env: { ...baseEnv(home), ...guard.env(), ...extra },
      deadlineMs: options.deadlineMs ?? (spec.slow ? 10 * 60_000 : 120_000),
      killWhen,
    });
    // Everything the CLI exported before it ended is read in before the record is made.
    await capture.idle();
    const rehome = (text: string): string => text.split(home.root).join('$HOME');
    return {
      id: runId(spec),
      spec,
      startedAtMs: now,
      script,
      cliVersion: cli.version,
      argv: [cli.bin.split('/').pop() ?? cli.bin, ...args].map(rehome),
      env: Object.fromEntries(Object.entries(redactEnv(extra)).map(([k, v]) => [k, rehome(v)])),
      configToml: configToml === null ? null : configToml,
      result,
      apiRequests: stub.requests.filter((r) => r.n > 0),
      otherRequests: stub.otherRequests(),
      otlp: [...capture.exports],
      egress: [...guard.attempts],
      home: home.root,
    };
  } finally {
    await Promise.all([stub.close(), capture.close(), guard.close()]);
    if (!options.keepHome) home.remove();
  }
}
