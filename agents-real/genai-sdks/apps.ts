import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../recording/fixtures-io.js';
import { installCli, type CliInstall } from '../cli/install.js';
import { openai, type OpenAiStep } from '../stubs/openai-stub.js';

/**
 * Apps on GenAI SDKs nobody here wrote, each traced the way its SDK's docs say, so the ingest is
 * tested against spans as those SDKs export them (docs/otel.md "GenAI SDKs as they export"):
 *
 * - `ai-sdk`: the Vercel AI SDK (`ai` with `@ai-sdk/openai`, `experimental_telemetry`) under the
 *   OpenTelemetry Node SDK and its OTLP/HTTP exporter; the project's devDependencies.
 * - `traceloop`: Traceloop OpenLLMetry over the `openai` SDK and over the AI SDK; installed, pinned,
 *   into the test-CLI cache like the agent CLIs (install.ts), being some 260 packages.
 * - `openinference`: Arize OpenInference over the `openai` SDK; cached the same way.
 *
 * Every app talks to a local stub of the OpenAI API only (the Responses API for the AI SDK, Chat
 * Completions for the `openai` SDK's calls).
 */

export type AppName = 'ai-sdk' | 'traceloop' | 'openinference';

/**
 * Text that is content: the system instructions, the user's prompt, the model's answer, a tool's
 * arguments and a tool's result. Each carries a marker no other value has, so a test can tell
 * that none of it reached the journal.
 */
export const CONTENT = {
  system: 'You are a terse weather assistant. SYSTEM-MARKER-7f1c',
  prompt: 'What is the weather in Lyon right now? PROMPT-MARKER-2b9d',
  answer: 'It rains in Lyon, 14 degrees. ANSWER-MARKER-5e3a',
  toolArguments: 'ARGS-MARKER-8c4f',
  toolResult: 'RESULT-MARKER-1d7e',
} as const;

const toolCall = (name: string): OpenAiStep => openai.tool(name, { city: 'Lyon', note: CONTENT.toolArguments });
const answer = openai.text(CONTENT.answer);

export interface Scenario {
  /** Which API of the stub the app calls. */
  api: 'responses' | 'chat';
  steps: readonly OpenAiStep[];
}

/** Each app's scenarios: what the stub answers, and (by name) what the app does. */
export const APP_SCENARIOS: Record<AppName, Record<string, Scenario>> = {
  'ai-sdk': {
    /** generateText, answered. */
    text: { api: 'responses', steps: [answer] },
    /** streamText, answered as a stream. */
    stream: { api: 'responses', steps: [answer] },
    /** A 429 (Retry-After: 0) the AI SDK retries by itself, then an answer. */
    'rate-limit-then-ok': { api: 'responses', steps: [openai.rateLimited(0), answer] },
    /** The key is refused: the SDK does not retry a 401; the app fails. */
    unauthorized: { api: 'responses', steps: [openai.unauthorized()] },
    /** The model calls get_time (it answers), then get_weather (it throws), then answers. */
    'tool-fails': { api: 'responses', steps: [toolCall('get_time'), toolCall('get_weather'), answer] },
  },
  traceloop: {
    'openai-text': { api: 'chat', steps: [answer] },
    'openai-unauthorized': { api: 'chat', steps: [openai.unauthorized()] },
    'ai-sdk-text': { api: 'responses', steps: [answer] },
    'ai-sdk-unauthorized': { api: 'responses', steps: [openai.unauthorized()] },
    'ai-sdk-tool-fails': { api: 'responses', steps: [toolCall('get_time'), toolCall('get_weather'), answer] },
  },
  openinference: {
    'openai-text': { api: 'chat', steps: [answer] },
    'openai-unauthorized': { api: 'chat', steps: [openai.unauthorized()] },
    'openai-tool': { api: 'chat', steps: [toolCall('get_time'), answer] },
  },
};

/** The pinned packages of the cached apps (the first names the cache folder). */
const CACHED_APP_PINS: Record<Exclude<AppName, 'ai-sdk'>, Record<string, string>> = {
  traceloop: { '@traceloop/node-server-sdk': '0.27.0', openai: '6.30.1', ai: '6.0.325', '@ai-sdk/openai': '3.0.141', zod: '4.6.7' },
  openinference: {
    '@arizeai/openinference-instrumentation-openai': '4.2.7',
    openai: '6.30.1',
    '@opentelemetry/api': '1.9.0',
    '@opentelemetry/sdk-trace-node': '2.12.1',
    '@opentelemetry/resources': '2.12.1',
    '@opentelemetry/exporter-trace-otlp-http': '0.203.0',
  },
};

/** The AI SDK app's packages: the project's devDependencies, at the versions installed. */
const AI_SDK_PACKAGES = ['ai', '@ai-sdk/openai', '@opentelemetry/sdk-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/api'];

/** The package versions an app runs with (what a recording names). */
export function appPackages(app: AppName): Record<string, string> {
  if (app !== 'ai-sdk') return { ...CACHED_APP_PINS[app] };
  const root = repoRoot();
  const version = (name: string): string => (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return Object.fromEntries(AI_SDK_PACKAGES.map((name) => [name, version(name)]));
}

const installs = new Map<AppName, Promise<CliInstall>>();

/** Where an app's packages are: the project's own node_modules for the AI SDK app, else its cached install. */
export function installedApp(app: AppName): Promise<CliInstall> {
  if (app === 'ai-sdk') {
    const version = appPackages('ai-sdk').ai as string;
    return Promise.resolve({ ok: true, name: app, version, dir: repoRoot(), bin: process.execPath, reused: true });
  }
  let install = installs.get(app);
  if (!install) {
    const specs = Object.entries(CACHED_APP_PINS[app]).map(([pkg, version]) => `${pkg}@${version}`);
    const [first, ...rest] = specs;
    const digest = createHash('sha256').update(specs.join('\n')).digest('hex').slice(0, 8);
    // The one command every set has in node_modules/.bin is the openai SDK's; there is no CLI to ask for a version.
    install = installCli({
      name: `genai-${app}`,
      spec: first as string,
      with: rest,
      version: `${first?.split('@').at(-1) ?? ''}+${digest}`,
      bin: 'openai',
      verify: false,
    });
    installs.set(app, install);
  }
  return install;
}

export interface AppRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface AppRunOptions {
  app: AppName;
  scenario: string;
  /** The install's folder (CliInstall.dir). */
  modules: string;
  /** The provider stub's base URL (`http://127.0.0.1:N`). */
  providerUrl: string;
  /** The OTLP base endpoint and its bearer token. */
  otlpEndpoint: string;
  token: string;
}

/** Runs an app once to its end (each exports its spans before it exits). */
export function runApp(options: AppRunOptions): Promise<AppRun> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HIVEWATCH_GENAI_MODULES: options.modules,
    HIVEWATCH_GENAI_SCENARIO: options.scenario,
    HIVEWATCH_AI_SDK_SYSTEM: CONTENT.system,
    HIVEWATCH_AI_SDK_PROMPT: CONTENT.prompt,
    HIVEWATCH_AI_SDK_TOOL_NOTE: CONTENT.toolResult,
    OPENAI_BASE_URL: `${options.providerUrl}/v1`,
    OPENAI_API_KEY: 'sk-stub-genai-sdk',
    OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
    OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${options.token}`,
    HIVEWATCH_OTLP_TOKEN: options.token,
    // The receiver takes traces only (docs/otel.md "Receiver").
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
  const script = join(repoRoot(), 'agents-real', 'genai-sdks', `${options.app}.mjs`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => resolve({ exitCode: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code) => resolve({ exitCode: code, stdout, stderr }));
  });
}
