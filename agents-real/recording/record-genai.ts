import {
  GENAI_CLIENT_PINS,
  GENAI_PROTOBUF_SCENARIOS,
  GENAI_SCENARIOS,
  installedGenAiClient,
  runGenAiClient,
  type GenAiProtocol,
} from '../genai-client/genai-client.js';
import { genAiFixtureId, writeGenAiFixture, type GenAiFixtureRun } from './genai-fixtures.js';
import { APP_SCENARIOS, appPackages, installedApp, runApp, type AppName } from '../genai-sdks/apps.js';
import { startOpenAiChatStub } from '../stubs/openai-chat-stub.js';
import { startOpenAiStub } from '../stubs/openai-stub.js';
import { startOtlpCapture } from '../otlp/otlp-capture.js';

/**
 * `npm run record-genai-fixtures [-- --only weather-agent,ai-sdk,traceloop,openinference]`: runs
 * the GenAI-instrumented client (genai-client.ts) once per scenario against the Chat Completions
 * stub, and each GenAI SDK app (genai-sdks/apps.ts) once per scenario against its stub, exporting
 * to a capturing OTLP receiver, and writes agents-real/fixtures/genai-openai/ and
 * genai-<app>/ (genai-fixtures.ts). Needs the npm registry once (the pinned packages are cached
 * in ~/.cache/hivewatch-test-clis; the AI SDK app's are devDependencies).
 */

const TOKEN = 'genai-record-token';

async function recordScenario(scenario: string, protocol: GenAiProtocol, modules: string): Promise<void> {
  const stub = await startOpenAiChatStub(GENAI_SCENARIOS[scenario] ?? []);
  const capture = await startOtlpCapture({ token: TOKEN });
  try {
    const result = await runGenAiClient({
      modules,
      providerUrl: stub.url,
      otlpEndpoint: capture.url,
      token: TOKEN,
      conversationId: `conv-${scenario}`,
      protocol,
    });
    await capture.idle();
    const traces = capture.exports.filter((e) => e.signal === 'traces');
    const id = genAiFixtureId(scenario, protocol);
    const extension = protocol === 'http/protobuf' ? 'pb' : 'json';
    const run: GenAiFixtureRun = {
      id,
      scenario,
      protocol,
      recordedAt: new Date().toISOString(),
      node: process.version,
      packages: { ...GENAI_CLIENT_PINS },
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      apiRequests: stub.requests.map((r) => ({ n: r.n, path: r.path, answer: r.answer })),
      exports: traces.map((e, i) => ({
        seq: e.seq,
        path: e.path,
        contentType: e.contentType,
        file: `otlp/${String(i + 1).padStart(3, '0')}-traces.${extension}`,
      })),
    };
    writeGenAiFixture(
      run,
      traces.map((e) => e.payload),
    );
    console.log(`${id}: exit ${String(result.exitCode)}, ${stub.apiRequestCount()} model requests, ${traces.length} trace exports`);
  } finally {
    await capture.close();
    await stub.close();
  }
}

async function recordApp(app: AppName, scenario: string, modules: string): Promise<void> {
  const { api, steps } = APP_SCENARIOS[app][scenario] as (typeof APP_SCENARIOS)[AppName][string];
  const stub = api === 'chat' ? await startOpenAiChatStub(steps) : await startOpenAiStub(steps);
  const capture = await startOtlpCapture({ token: TOKEN });
  try {
    const result = await runApp({ app, scenario, modules, providerUrl: stub.url, otlpEndpoint: capture.url, token: TOKEN });
    await capture.idle();
    const traces = capture.exports.filter((e) => e.signal === 'traces');
    const protobuf = traces.some((e) => e.encoding === 'protobuf');
    const run: GenAiFixtureRun = {
      id: scenario,
      scenario,
      protocol: protobuf ? 'http/protobuf' : 'http/json',
      recordedAt: new Date().toISOString(),
      node: process.version,
      packages: appPackages(app),
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      apiRequests: stub.requests.map((r) => ({ n: r.n, path: r.path, answer: r.answer })),
      exports: traces.map((e, i) => ({
        seq: e.seq,
        path: e.path,
        contentType: e.contentType,
        file: `otlp/${String(i + 1).padStart(3, '0')}-traces.${e.encoding === 'protobuf' ? 'pb' : 'json'}`,
      })),
    };
    writeGenAiFixture(
      run,
      traces.map((e) => e.payload),
      `genai-${app}`,
    );
    console.log(`genai-${app}/${scenario}: exit ${String(result.exitCode)}, ${stub.apiRequestCount()} model requests, ${traces.length} trace exports`);
  } finally {
    await capture.close();
    await stub.close();
  }
}

const APPS: readonly AppName[] = ['ai-sdk', 'traceloop', 'openinference'];

async function main(): Promise<void> {
  const onlyArg = process.argv.indexOf('--only');
  const only = onlyArg >= 0 ? new Set((process.argv[onlyArg + 1] ?? '').split(',')) : null;
  if (only === null || only.has('weather-agent')) {
    const install = await installedGenAiClient();
    if (!install.ok) throw new Error(`the GenAI client's packages did not install: ${install.reason}`);
    for (const scenario of Object.keys(GENAI_SCENARIOS)) await recordScenario(scenario, 'http/json', install.dir);
    for (const scenario of GENAI_PROTOBUF_SCENARIOS) await recordScenario(scenario, 'http/protobuf', install.dir);
  }
  for (const app of APPS.filter((a) => only === null || only.has(a))) {
    const install = await installedApp(app);
    if (!install.ok) throw new Error(`the ${app} app's packages did not install: ${install.reason}`);
    for (const scenario of Object.keys(APP_SCENARIOS[app])) await recordApp(app, scenario, install.dir);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
