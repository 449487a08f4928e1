import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { repoRoot } from '../recording/fixtures-io.js';
import { installCli, type CliInstall } from '../cli/install.js';
import { openai, type OpenAiStep } from '../stubs/openai-stub.js';

/**
 * The GenAI-instrumented client (agents-real/genai-client/agent.mjs): a weather agent on the
 * official `openai` SDK, traced by `@opentelemetry/instrumentation-openai`, exporting OTLP/HTTP
 * JSON. Its packages are pinned here and installed like the agent CLIs (install.ts: once per
 * machine into ~/.cache/hivewatch-test-clis, never into the product's node_modules); a suite
 * whose install fails skips with the reason in its name.
 */

/** The packages, pinned; the SDK's instrumentation first (the cache is named after it). */
export const GENAI_CLIENT_PINS = {
  '@opentelemetry/instrumentation-openai': '0.22.0',
  openai: '6.30.1',
  '@opentelemetry/api': '1.10.0',
  '@opentelemetry/sdk-trace': '3.1.0',
  '@opentelemetry/resources': '3.1.0',
  '@opentelemetry/context-async-hooks': '3.1.0',
  '@opentelemetry/instrumentation': '0.300.0',
  '@opentelemetry/exporter-trace-otlp-http': '0.301.0',
  '@opentelemetry/exporter-trace-otlp-proto': '0.301.0',
} as const;

/** How the client exports (OTEL_EXPORTER_OTLP_PROTOCOL): JSON or protobuf over HTTP. */
export type GenAiProtocol = 'http/json' | 'http/protobuf';

/** The scenarios recorded over protobuf as well (folder `<scenario>.protobuf`). */
export const GENAI_PROTOBUF_SCENARIOS = ['rate-limit-then-ok'] as const;

/** From the repository's root: the compiled recorder runs from node_modules/.cache/. */
const AGENT = join(repoRoot(), 'agents-real', 'genai-client', 'agent.mjs');

/** What the provider stub answers in each recorded scenario (openai-chat-stub.ts), and what the agent then does. */
export const GENAI_SCENARIOS: Record<string, readonly OpenAiStep[]> = {
  /** One call answered. */
  success: [openai.text('It rains in Lyon.')],
  /** A 429 the agent tries again, then an answer. */
  'rate-limit-then-ok': [openai.rateLimited(), openai.text('It rains in Lyon.')],
  /** The key is refused: the agent gives up (exit 1). */
  unauthorized: [openai.unauthorized()],
  /** The model calls get_weather; the agent runs it and calls the model again. */
  tool: [openai.tool('get_weather', { city: 'Lyon' }), openai.text('It rains in Lyon, 14 °C.')],
};

let install: Promise<CliInstall> | null = null;

/** The pinned packages, installed (or found) once per process. */
export function installedGenAiClient(): Promise<CliInstall> {
  const specs = Object.entries(GENAI_CLIENT_PINS).map(([pkg, version]) => `${pkg}@${version}`);
  const [first, ...rest] = specs;
  // The cache folder is named after the first package; the digest of every pin makes a changed pin a new folder.
  const digest = createHash('sha256').update(specs.join('\n')).digest('hex').slice(0, 8);
  install ??= installCli({
    name: 'genai-client',
    spec: first as string,
    with: rest,
    version: `${GENAI_CLIENT_PINS['@opentelemetry/instrumentation-openai']}+${digest}`,
    // The one command the packages put in node_modules/.bin (the SDK's); there is no CLI to ask for a version.
    bin: 'openai',
    verify: false,
  });
  return install;
}

export interface GenAiClientRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface GenAiClientOptions {
  /** The install's folder (CliInstall.dir). */
  modules: string;
  /** The provider stub's base URL (`http://127.0.0.1:N`). */
  providerUrl: string;
  /** The OTLP base endpoint and its bearer token. */
  otlpEndpoint: string;
  token: string;
  conversationId?: string;
  /** Default http/json. */
  protocol?: GenAiProtocol;
}

/** Runs the agent once to its end (it exports its spans before exiting). */
export function runGenAiClient(options: GenAiClientOptions): Promise<GenAiClientRun> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HIVEWATCH_GENAI_MODULES: options.modules,
    OPENAI_BASE_URL: `${options.providerUrl}/v1`,
    OPENAI_API_KEY: 'sk-stub-genai',
    OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
    OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${options.token}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: options.protocol ?? 'http/json',
    ...(options.conversationId ? { HIVEWATCH_GENAI_CONVERSATION: options.conversationId } : {}),
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [AGENT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => resolve({ exitCode: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code) => resolve({ exitCode: code, stdout, stderr }));
  });
}
