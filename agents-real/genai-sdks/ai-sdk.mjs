// A small weather app on the Vercel AI SDK (`ai` with `@ai-sdk/openai`), traced the way the AI
// SDK's docs tell an app to: `experimental_telemetry: { isEnabled: true }` on each call, and the
// OpenTelemetry Node SDK with an OTLP/HTTP exporter registered before it. Nothing here makes a
// span of its own: every span Hivewatch receives is one the AI SDK made (docs/otel.md "The AI SDK").
// The packages are the project's devDependencies.
//
// Inputs (environment):
//   HIVEWATCH_GENAI_SCENARIO   text | stream | rate-limit-then-ok | unauthorized | tool-fails
//   HIVEWATCH_AI_SDK_SYSTEM, HIVEWATCH_AI_SDK_PROMPT   the system instructions and the user's prompt
//   HIVEWATCH_AI_SDK_TOOL_NOTE  what the get_time tool answers (its result text)
//   OPENAI_BASE_URL, OPENAI_API_KEY   the provider (the local stub of the Responses API)
//   OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS   the receiver (read by the exporter)
// It prints the answer and exits 0, or prints the error and exits 1.

import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';

const sdk = new NodeSDK({ serviceName: 'weather-app', traceExporter: new OTLPTraceExporter(), instrumentations: [] });
sdk.start();

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const model = openai('gpt-4o-mini');
const telemetry = { isEnabled: true, functionId: 'weather-report' };
const scenario = process.env.HIVEWATCH_GENAI_SCENARIO ?? 'text';
const ask = { model, system: process.env.HIVEWATCH_AI_SDK_SYSTEM, prompt: process.env.HIVEWATCH_AI_SDK_PROMPT, experimental_telemetry: telemetry };

const tools = {
  get_time: tool({
    description: 'The local time in a city',
    inputSchema: z.object({ city: z.string(), note: z.string().optional() }),
    execute: async ({ city }) => ({ city, time: '14:05', note: process.env.HIVEWATCH_AI_SDK_TOOL_NOTE }),
  }),
  get_weather: tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string(), note: z.string().optional() }),
    execute: async ({ city }) => {
      throw new Error(`the weather service has no station for ${city}`);
    },
  }),
};

async function answer() {
  if (scenario === 'stream') {
    const result = streamText(ask);
    let text = '';
    for await (const chunk of result.textStream) text += chunk;
    return text;
  }
  if (scenario === 'tool-fails') return (await generateText({ ...ask, tools, stopWhen: stepCountIs(5) })).text;
  return (await generateText(ask)).text;
}

let code = 0;
try {
  console.log(await answer());
} catch (error) {
  console.error(`the app failed: ${error.message}`);
  code = 1;
}
// Exports what is batched before exiting.
await sdk.shutdown();
process.exitCode = code;
