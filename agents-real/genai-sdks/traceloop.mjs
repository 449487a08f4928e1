// The weather app again, traced by Traceloop OpenLLMetry (`@traceloop/node-server-sdk`): its
// OpenAI instrumentation over the official `openai` SDK (Chat Completions), and its span
// processor over the Vercel AI SDK's `experimental_telemetry` spans (Responses API). Traceloop
// exports OTLP/HTTP protobuf to `<baseUrl>/v1/traces` with `Authorization: Bearer <apiKey>`, so
// Hivewatch's receiver and ingest token are its base URL and API key. The packages are not the
// project's: agents-real/genai-sdks/apps.ts installs them, pinned, into a cache and passes it here.
//
// Inputs (environment): HIVEWATCH_GENAI_MODULES (the cache's folder), HIVEWATCH_GENAI_SCENARIO
// (openai-text | openai-unauthorized | ai-sdk-text | ai-sdk-unauthorized | ai-sdk-tool-fails),
// HIVEWATCH_AI_SDK_SYSTEM / _PROMPT / _TOOL_NOTE (the content), OPENAI_BASE_URL, OPENAI_API_KEY,
// OTEL_EXPORTER_OTLP_ENDPOINT (Traceloop's base URL), HIVEWATCH_OTLP_TOKEN (its API key).

import { createRequire } from 'node:module';
import { join } from 'node:path';

const load = createRequire(join(process.env.HIVEWATCH_GENAI_MODULES || process.cwd(), 'package.json'));
const traceloop = load('@traceloop/node-server-sdk');
const { OpenAI } = load('openai');
traceloop.initialize({
  appName: 'weather-app-traceloop',
  baseUrl: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  apiKey: process.env.HIVEWATCH_OTLP_TOKEN,
  // Offline: no prompt registry to fetch from Traceloop's servers.
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
  instrumentModules: { openAI: OpenAI },
});
const { generateText, stepCountIs, tool } = load('ai');
const { createOpenAI } = load('@ai-sdk/openai');
const { z } = load('zod');

const scenario = process.env.HIVEWATCH_GENAI_SCENARIO ?? 'openai-text';
const system = process.env.HIVEWATCH_AI_SDK_SYSTEM;
const prompt = process.env.HIVEWATCH_AI_SDK_PROMPT;

async function viaOpenAi() {
  const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: prompt },
    ],
  });
  return answer.choices[0].message.content;
}

async function viaAiSdk() {
  const model = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY })('gpt-4o-mini');
  const tools = {
    get_time: tool({
      inputSchema: z.object({ city: z.string(), note: z.string().optional() }),
      execute: async ({ city }) => ({ city, time: '14:05', note: process.env.HIVEWATCH_AI_SDK_TOOL_NOTE }),
    }),
    get_weather: tool({
      inputSchema: z.object({ city: z.string(), note: z.string().optional() }),
      execute: async ({ city }) => {
        throw new Error(`the weather service has no station for ${city}`);
      },
    }),
  };
  const withTools = scenario === 'ai-sdk-tool-fails' ? { tools, stopWhen: stepCountIs(5) } : {};
  return (await generateText({ model, system, prompt, ...withTools, experimental_telemetry: { isEnabled: true, functionId: 'weather-report' } })).text;
}

let code = 0;
try {
  console.log(await (scenario.startsWith('openai-') ? viaOpenAi() : viaAiSdk()));
} catch (error) {
  console.error(`the app failed: ${error.message}`);
  code = 1;
}
// Exports what is batched before exiting.
await traceloop.forceFlush();
process.exitCode = code;
