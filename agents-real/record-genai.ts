import { GENAI_CLIENT_PINS, GENAI_PROTOBUF_SCENARIOS, GENAI_SCENARIOS, installedGenAiClient, runGenAiClient, type GenAiProtocol } from './genai-client.js';
import { genAiFixtureId, writeGenAiFixture, type GenAiFixtureRun } from './genai-fixtures.js';
import { startOpenAiChatStub } from './openai-chat-stub.js';
import { startOtlpCapture } from './otlp-capture.js';

/**
 * `npm run record-genai-fixtures`: runs the GenAI-instrumented client (genai-client.ts) once per
 * scenario against the Chat Completions stub, exporting to a capturing OTLP receiver, and writes
 * agents-real/fixtures/genai-openai/ (genai-fixtures.ts). Needs the npm registry once (the pinned
 * packages are cached in ~/.cache/hivewatch-test-clis).
 */

const TOKEN = 'genai-record-token';

async function recordScenario(scenario: string, protocol: GenAiProtocol, modules: string): Promise<void> {
  const stub = await startOpenAiChatStub(GENAI_SCENARIOS[scenario] ?? []);
  const capture = await startOtlpCapture({ token: TOKEN });
  try {
    const result = await runGenAiClient({ modules, providerUrl: stub.url, otlpEndpoint: capture.url, token: TOKEN, conversationId: `conv-${scenario}`, protocol });
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
      exports: traces.map((e, i) => ({ seq: e.seq, path: e.path, contentType: e.contentType, file: `otlp/${String(i + 1).padStart(3, '0')}-traces.${extension}` })),
    };
    writeGenAiFixture(run, traces.map((e) => e.payload));
    console.log(`${id}: exit ${String(result.exitCode)}, ${stub.apiRequestCount()} model requests, ${traces.length} trace exports`);
  } finally {
    await capture.close();
    await stub.close();
  }
}

async function main(): Promise<void> {
  const install = await installedGenAiClient();
  if (!install.ok) throw new Error(`the GenAI client's packages did not install: ${install.reason}`);
  for (const scenario of Object.keys(GENAI_SCENARIOS)) await recordScenario(scenario, 'http/json', install.dir);
  for (const scenario of GENAI_PROTOBUF_SCENARIOS) await recordScenario(scenario, 'http/protobuf', install.dir);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
