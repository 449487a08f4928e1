// The weather app on the official `openai` SDK, traced by Arize OpenInference
// (`@arizeai/openinference-instrumentation-openai`) and exported with the OpenTelemetry trace SDK's
// OTLP/HTTP JSON exporter. Its spans follow OpenInference's conventions (`llm.*`, `input.value`,
// `output.value`), not the GenAI ones. The packages are not the project's: agents-real/genai-sdks/apps.ts
// installs them, pinned, into a cache and passes it here.
//
// Inputs (environment): HIVEWATCH_GENAI_MODULES, HIVEWATCH_GENAI_SCENARIO (openai-text |
// openai-unauthorized | openai-tool), HIVEWATCH_AI_SDK_SYSTEM / _PROMPT / _TOOL_NOTE, OPENAI_BASE_URL,
// OPENAI_API_KEY, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS.

import { createRequire } from 'node:module';
import { join } from 'node:path';

const load = createRequire(join(process.env.HIVEWATCH_GENAI_MODULES || process.cwd(), 'package.json'));
const { NodeTracerProvider, BatchSpanProcessor } = load('@opentelemetry/sdk-trace-node');
const { OTLPTraceExporter } = load('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = load('@opentelemetry/resources');
const { OpenAIInstrumentation } = load('@arizeai/openinference-instrumentation-openai');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'weather-app-openinference' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
provider.register();
// Patched by hand, as OpenInference's docs show for a module the app loads itself (no require hook).
const instrumentation = new OpenAIInstrumentation();
instrumentation.setTracerProvider(provider);
const openaiModule = load('openai');
instrumentation.manuallyInstrument(openaiModule);
const { OpenAI } = openaiModule;

const scenario = process.env.HIVEWATCH_GENAI_SCENARIO ?? 'openai-text';
const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, maxRetries: 0 });
const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'The local time in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, note: { type: 'string' } }, required: ['city'] },
  },
};

async function work() {
  const messages = [
    { role: 'system', content: process.env.HIVEWATCH_AI_SDK_SYSTEM },
    { role: 'user', content: process.env.HIVEWATCH_AI_SDK_PROMPT },
  ];
  const tools = scenario === 'openai-tool' ? { tools: [WEATHER_TOOL] } : {};
  for (let turn = 0; turn < 4; turn += 1) {
    const message = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages, ...tools })).choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ time: '14:05', note: process.env.HIVEWATCH_AI_SDK_TOOL_NOTE }) });
  }
  throw new Error('no answer after 4 turns');
}

let code = 0;
try {
  console.log(await work());
} catch (error) {
  console.error(`the app failed: ${error.message}`);
  code = 1;
}
await provider.shutdown();
process.exitCode = code;
