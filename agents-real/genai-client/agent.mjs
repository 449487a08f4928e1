// A tiny weather agent instrumented with maintained OpenTelemetry packages, so Hivewatch's GenAI
// mapping is tested against spans nobody here wrote (docs/otel.md "OpenTelemetry GenAI agents"):
// its model calls go through the official `openai` SDK, whose `chat` spans come from
// `@opentelemetry/instrumentation-openai`; the agent adds the two spans the GenAI agent
// conventions give an agent itself (`invoke_agent` around its work, `execute_tool` per tool
// call); `@opentelemetry/exporter-trace-otlp-http` exports them. The packages are not the
// product's: agents-real/genai-client/genai-client.ts installs them, pinned, into a cache and passes it here.
//
// Inputs (environment):
//   HIVEWATCH_GENAI_MODULES       the cache's folder (its node_modules holds the packages)
//   OPENAI_BASE_URL, OPENAI_API_KEY   the provider (the local stub)
//   OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS   the receiver (read by the exporter)
//   OTEL_EXPORTER_OTLP_PROTOCOL   http/json (default) or http/protobuf: which exporter package
//   HIVEWATCH_GENAI_CONVERSATION  the conversation id the agent reports (optional)
// It asks for the weather, runs the tool the model calls, retries a rate-limited call once
// (the SDK's own retries are off, so each try is a span), and exits 1 when it gives up.

import { createRequire } from 'node:module';
import { join } from 'node:path';

const load = createRequire(join(process.env.HIVEWATCH_GENAI_MODULES || process.cwd(), 'package.json'));
const api = load('@opentelemetry/api');
const { TracerProvider, BatchSpanProcessor } = load('@opentelemetry/sdk-trace');
// The exporter the standard variable names: http/protobuf, else OTLP/HTTP JSON.
const protobuf = process.env.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/protobuf';
const { OTLPTraceExporter } = load(protobuf ? '@opentelemetry/exporter-trace-otlp-proto' : '@opentelemetry/exporter-trace-otlp-http');
const { AsyncLocalStorageContextManager } = load('@opentelemetry/context-async-hooks');
const { resourceFromAttributes } = load('@opentelemetry/resources');
const { registerInstrumentations } = load('@opentelemetry/instrumentation');
const { OpenAIInstrumentation } = load('@opentelemetry/instrumentation-openai');

const provider = new TracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'weather-agent', 'service.version': '1.0.0' }),
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
});
api.trace.setGlobalTracerProvider(provider);
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
registerInstrumentations({ tracerProvider: provider, instrumentations: [new OpenAIInstrumentation()] });
// Loaded (as CommonJS) after the instrumentation is registered: it patches the module as it is loaded.
const { OpenAI } = load('openai');

const tracer = api.trace.getTracer('weather-agent', '1.0.0');
const client = new OpenAI({ maxRetries: 0 });
const MODEL = 'gpt-4o-mini';
const conversation = process.env.HIVEWATCH_GENAI_CONVERSATION;

function getWeather(args) {
  if (!args.city) throw new Error('get_weather needs a city');
  return { city: args.city, forecast: 'rain', celsius: 14 };
}

/** Runs one tool call in its execute_tool span (the GenAI agent conventions' attributes). */
function runTool(call) {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.function.name,
    'gen_ai.tool.call.id': call.id,
    'gen_ai.tool.type': 'function',
  };
  return tracer.startActiveSpan(`execute_tool ${call.function.name}`, { kind: api.SpanKind.INTERNAL, attributes }, (span) => {
    try {
      return JSON.stringify(getWeather(JSON.parse(call.function.arguments)));
    } catch (error) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
      span.setAttribute('error.type', error.constructor.name);
      return JSON.stringify({ error: error.message });
    } finally {
      span.end();
    }
  });
}

/** One model call, tried again once when the provider rate-limits it. */
async function complete(messages) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] });
    } catch (error) {
      if (error.constructor.name !== 'RateLimitError' || attempt >= 2) throw error;
      console.error(`rate limited, trying again: ${error.message}`);
    }
  }
}

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

async function work() {
  const messages = [{ role: 'user', content: 'What is the weather in Lyon?' }];
  for (let turn = 0; turn < 4; turn += 1) {
    const answer = await complete(messages);
    const message = answer.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: runTool(call) });
  }
  throw new Error('no answer after 4 turns');
}

async function main() {
  const attributes = {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': 'openai',
    'gen_ai.agent.name': 'weather',
    'gen_ai.request.model': MODEL,
    ...(conversation ? { 'gen_ai.conversation.id': conversation } : {}),
  };
  let code = 0;
  await tracer.startActiveSpan('invoke_agent weather', { kind: api.SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      console.log(await work());
    } catch (error) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
      span.setAttribute('error.type', error.constructor.name);
      console.error(`the agent failed: ${error.message}`);
      code = 1;
    } finally {
      span.end();
    }
  });
  // Exports what is batched before exiting.
  await provider.shutdown();
  process.exitCode = code;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
