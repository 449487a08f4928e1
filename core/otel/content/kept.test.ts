import { describe, expect, it } from 'vitest';
import { decodeOtlp, own, type TelemetryRecord } from '../receive/decode.js';
import { eventName } from '../mapping.js';
import { keptAttributes, NOT_STORED_KEY, PROMPT_NOT_STORED, senderOf } from './kept.js';
import { RECORDED_CONTENT, recordedExports, withEventOnEverySpan } from './testing.js';

/**
 * The allow-list per scheme against what real senders recorded (agents-real/fixtures/: Claude Code
 * 2.1.332, Codex 0.169.0, the Vercel AI SDK 6, Traceloop OpenLLMetry 0.27, Arize OpenInference 4.2,
 * the weather agent on @opentelemetry/instrumentation-openai): no content is kept, and what Hivewatch
 * reads is.
 */

const recorded = recordedExports();

function keptOf(scheme: string, storePrompts = false): { record: TelemetryRecord; kept: Record<string, unknown> }[] {
  const exports = recorded[scheme] ?? [];
  expect(exports.length, `${scheme} has recordings`).toBeGreaterThan(0);
  // Every span's attributes too, as an event of it would carry them.
  const records = exports.flatMap((e) => [
    ...decodeOtlp(e.signal, e.encoding, e.payload),
    ...(e.signal === 'traces' ? decodeOtlp('traces', 'json', withEventOnEverySpan(e)) : []),
  ]);
  return records.map((record) => {
    const service = own(record.resource, 'service.name');
    return { record, kept: keptAttributes(record.attributes, senderOf(eventName(record), typeof service === 'string' ? service : ''), storePrompts) };
  });
}

/** The recordings hold the content (else the check below proves nothing), and no kept attribute does. */
function expectNoContent(scheme: string, storePrompts = false): { record: TelemetryRecord; kept: Record<string, unknown> }[] {
  const all = keptOf(scheme, storePrompts);
  const sent = JSON.stringify(all.map((r) => r.record.attributes));
  const kept = JSON.stringify(all.map((r) => r.kept));
  for (const text of RECORDED_CONTENT[scheme] ?? []) {
    expect(sent, `${scheme}'s recordings carry ${JSON.stringify(text)}`).toContain(text.replace(/"/g, '\\"'));
    expect(kept, `${scheme}: ${JSON.stringify(text)} is not kept`).not.toContain(text.replace(/"/g, '\\"'));
  }
  return all;
}

const dropped = (all: { kept: Record<string, unknown> }[]): Set<string> => new Set(all.flatMap((r) => (r.kept[NOT_STORED_KEY] as string[] | undefined) ?? []));
const keptKeys = (all: { kept: Record<string, unknown> }[]): Set<string> => new Set(all.flatMap((r) => Object.keys(r.kept)));

describe('content allow-list, per scheme, on recorded payloads', () => {
  it('Claude Code: no prompt or response text (the prompt reads as not stored); cost, tokens, errors and tools are kept', () => {
    const all = expectNoContent('claude-code');
    const prompts = all.filter((r) => eventName(r.record) === 'claude_code.user_prompt').map((r) => r.kept.prompt);
    expect(new Set(prompts)).toEqual(new Set([PROMPT_NOT_STORED]));
    expect([...dropped(all)]).toEqual(expect.arrayContaining(['response', 'user.id']));
    expect([...keptKeys(all)]).toEqual(
      expect.arrayContaining(['cost_usd', 'input_tokens', 'status_code', 'error', 'tool_name', 'duration_ms', 'session.id', 'prompt.id']),
    );
  });

  it('Claude Code with otel.store_prompts on: the user prompt is kept, the response still is not', () => {
    const all = keptOf('claude-code', true);
    expect(JSON.stringify(all.map((r) => r.kept))).toContain('fix the flaky test in io.ts');
    expect([...keptKeys(all)]).not.toContain('response');
  });

  it('Codex: no tool arguments or output, no prompt; tokens, status and tool names are kept', () => {
    const all = expectNoContent('codex-cli');
    expect([...dropped(all)]).toEqual(expect.arrayContaining(['arguments', 'output']));
    expect([...keptKeys(all)]).toEqual(
      expect.arrayContaining(['input_token_count', 'http.response.status_code', 'error.message', 'tool_name', 'conversation.id']),
    );
  });

  it('the GenAI conventions: no input or output messages, tool definitions, arguments or results; ids, model, usage and errors are kept', () => {
    const all = expectNoContent('genai conventions');
    expect([...dropped(all)]).toEqual(
      expect.arrayContaining([
        'gen_ai.input.messages',
        'gen_ai.output.messages',
        'gen_ai.tool.definitions',
        'gen_ai.tool.call.arguments',
        'gen_ai.tool.call.result',
      ]),
    );
    expect([...keptKeys(all)]).toEqual(
      expect.arrayContaining(['gen_ai.operation.name', 'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.tool.name', 'error.type']),
    );
  });

  it("the AI SDK: no ai.prompt*, ai.response.text / toolCalls, ai.toolCall.args / result; its operation, model, usage and the exception's type and message are kept", () => {
    const all = expectNoContent('ai-sdk');
    expect([...dropped(all)]).toEqual(
      expect.arrayContaining([
        'ai.prompt',
        'ai.prompt.messages',
        'ai.prompt.tools',
        'ai.response.text',
        'ai.response.toolCalls',
        'ai.toolCall.args',
        'ai.toolCall.result',
        'exception.stacktrace',
      ]),
    );
    expect([...keptKeys(all)]).toEqual(
      expect.arrayContaining(['ai.operationId', 'ai.model.id', 'ai.usage.inputTokens', 'ai.toolCall.name', 'exception.type', 'exception.message']),
    );
  });

  it('OpenInference: no input.value / output.value or message contents (their names listed with indexes folded); model and token counts are kept', () => {
    const all = expectNoContent('openinference');
    expect([...dropped(all)]).toEqual(
      expect.arrayContaining(['input.value', 'output.value', 'llm.input_messages.*.message.content', 'llm.invocation_parameters']),
    );
    expect([...keptKeys(all)]).toEqual(expect.arrayContaining(['openinference.span.kind', 'llm.model_name', 'llm.token_count.prompt']));
  });

  it('OpenLLMetry: no traceloop.entity.input / output; its span kind and entity name are kept', () => {
    const all = expectNoContent('openllmetry');
    expect([...dropped(all)]).toEqual(expect.arrayContaining(['traceloop.entity.input', 'traceloop.entity.output']));
    expect([...keptKeys(all)]).toEqual(expect.arrayContaining(['traceloop.span.kind', 'traceloop.entity.name']));
  });
});

describe('keptAttributes', () => {
  it('keeps a usage family only as numbers, lists at most 40 dropped names, and never takes an unnamed attribute', () => {
    const attributes = {
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.note': 'tokens: PROMPT',
      'gen_ai.prompt.0.content': 'hi',
      'gen_ai.prompt.1.content': 'there',
    } as const;
    expect(keptAttributes(attributes, 'sdk', true)).toEqual({
      'gen_ai.usage.input_tokens': 12,
      [NOT_STORED_KEY]: ['gen_ai.prompt.*.content', 'gen_ai.usage.note'],
    });
    const many = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`x.key${String(i).padStart(2, '0')}`, 'v']));
    const listed = keptAttributes(many, 'sdk', false)[NOT_STORED_KEY] as string[];
    expect(listed).toHaveLength(41);
    expect(listed.at(-1)).toBe('+5 more');
  });

  it('a CLI prompt attribute of an SDK is not a prompt: an SDK record keeps no `prompt`, whatever the setting', () => {
    expect(keptAttributes({ prompt: 'secret words' }, 'sdk', true)).toEqual({ [NOT_STORED_KEY]: ['prompt'] });
  });
});
