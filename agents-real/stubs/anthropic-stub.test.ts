import { afterEach, describe, expect, it } from 'vitest';
import { anthropic, startAnthropicStub } from './anthropic-stub.js';
import type { ProviderStub } from './provider-stub.js';
import { parseSse, readUntil } from './sse.js';

const started: ProviderStub[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(...steps: Parameters<typeof startAnthropicStub>[0]): Promise<ProviderStub> {
  const stub = await startAnthropicStub(steps);
  started.push(stub);
  return stub;
}

function post(url: string, body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-secret' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [], ...body }),
    ...init,
  });
}

describe('the Anthropic Messages stub', () => {
  it('answers the n-th request with the n-th step and every later one with the last; other paths are 404 and counted apart', async () => {
    const s = await start(anthropic.rateLimited(1), anthropic.text('hi'));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(s.url, { stream: true })).status);
    expect(statuses).toEqual([429, 200, 200]);
    expect((await fetch(`${s.url}/v1/models`)).status).toBe(404);
    expect(s.apiRequestCount()).toBe(3);
    expect(s.requests.map((r) => [r.n, r.answer, r.path])).toEqual([
      [1, 'error 429', '/v1/messages?beta=true'],
      [2, 'text', '/v1/messages?beta=true'],
      [3, 'text', '/v1/messages?beta=true'],
      [0, '404', '/v1/models'],
    ]);
    expect(s.otherRequests()).toHaveLength(1);
  });

  it('errors are the documented body with the status, a request-id header, and retry-after on a 429', async () => {
    const s = await start(anthropic.rateLimited(1));
    const response = await post(s.url, { stream: true });
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('request-id')).toBe('req_stub_0001');
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
      request_id: 'req_stub_0001',
    });
    for (const [step, status, type] of [
      [anthropic.overloaded(), 529, 'overloaded_error'],
      [anthropic.serverError(), 500, 'api_error'],
      [anthropic.unauthorized(), 401, 'authentication_error'],
      [anthropic.forbidden(), 403, 'permission_error'],
    ] as const) {
      const one = await start(step);
      const answer = await post(one.url, {});
      expect([answer.status, ((await answer.json()) as { error: { type: string } }).error.type]).toEqual([status, type]);
    }
  });

  it('a usage limit is a 429 with the unified rate-limit headers, the reset in epoch seconds', async () => {
    const s = await start(anthropic.usageLimit(1_800_000_000));
    const response = await post(s.url, { stream: true });
    expect(response.status).toBe(429);
    expect(response.headers.get('anthropic-ratelimit-unified-status')).toBe('rejected');
    expect(response.headers.get('anthropic-ratelimit-unified-reset')).toBe('1800000000');
  });

  it('a streamed answer: message_start, content_block_start, ping, text_delta, content_block_stop, message_delta, message_stop', async () => {
    const s = await start(anthropic.text('Hello there'));
    const response = await post(s.url, { stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await response.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.every((e) => (e.data as { type: string }).type === e.event)).toBe(true);
    expect(events[0]?.data).toMatchObject({ message: { role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 12 } } });
    expect(events[3]?.data).toMatchObject({ delta: { type: 'text_delta', text: 'Hello there' } });
    expect(events[5]?.data).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } });
  });

  it('a tool call streams its input in input_json_delta pieces that join into the input; stop_reason tool_use', async () => {
    const input = { command: 'echo "a b"', description: 'x' };
    const s = await start(anthropic.tool('Bash', input));
    const events = parseSse(await (await post(s.url, { stream: true })).text());
    expect(events[1]?.data).toMatchObject({ content_block: { type: 'tool_use', name: 'Bash', id: 'toolu_stub_0001', input: {} } });
    const pieces = events.filter((e) => e.event === 'content_block_delta').map((e) => (e.data as { delta: { partial_json: string } }).delta.partial_json);
    expect(pieces).toHaveLength(2);
    expect(JSON.parse(pieces.join(''))).toEqual(input);
    expect(events.find((e) => e.event === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('without stream: one message object', async () => {
    const s = await start(anthropic.tool('Read', { file_path: '/x' }));
    const message = (await (await post(s.url, {})).json()) as Record<string, unknown>;
    expect(message).toMatchObject({ type: 'message', stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'Read', input: { file_path: '/x' } }] });
    expect(s.requests[0]?.stream).toBeNull();
  });

  it('stream-error: a 200 stream whose second event is an error', async () => {
    const s = await start(anthropic.streamError());
    const response = await post(s.url, { stream: true });
    expect(response.status).toBe(200);
    expect(parseSse(await response.text()).map((e) => [e.event, (e.data as { error?: { type: string } }).error?.type])).toEqual([
      ['message_start', undefined],
      ['error', 'overloaded_error'],
    ]);
  });

  it('hang: no status line; the request stays open until the client gives up, and is recorded as closed early', async () => {
    const s = await start(anthropic.hang());
    const abort = new AbortController();
    const pending = post(s.url, { stream: true }, { signal: abort.signal }).catch((error: Error) => error.name);
    await s.reached(1);
    abort.abort();
    expect(await pending).toBe('AbortError');
    await expect.poll(() => s.requests[0]?.clientClosedEarly, { message: 'the stub to see the client go', timeout: 20_000 }).toBeTruthy();
    expect(s.requests[0]?.answer).toBe('hang');
  });

  it('stall: message_start arrives, then nothing more', async () => {
    const s = await start(anthropic.stall());
    const response = await post(s.url, { stream: true });
    const body = response.body;
    if (!body) throw new Error('no body');
    const text = await readUntil(body, (t) => t.includes('\n\n'));
    expect(parseSse(text).map((e) => e.event)).toEqual(['message_start']);
    await expect.poll(() => s.requests[0]?.clientClosedEarly, { message: 'the stub to see the client go', timeout: 20_000 }).toBeTruthy();
  });

  it('records the request body and headers, with the API key redacted', async () => {
    const s = await start(anthropic.text());
    await post(s.url, { stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(s.requests[0]?.headers['x-api-key']).toBe('<redacted>');
    expect(s.requests[0]?.body).toMatchObject({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(s.requests[0]?.stream).toBe(true);
  });

  it('refuses an empty script', async () => {
    await expect(startAnthropicStub([])).rejects.toThrow('at least one step');
  });
  it('by conversation: each agent gets its own script by the text its first user message opens with, stepped by its assistant turns; an unclaimed one gets a 400', async () => {
    const s = await start(
      anthropic.byConversation([
        { opensWith: 'Ask a subagent', steps: [anthropic.tool('Agent', { prompt: 'Say hello.' }), anthropic.text('done')] },
        { opensWith: 'Say hello.', steps: [anthropic.serverError()] },
      ]),
    );
    const user = (...texts: string[]) => ({ role: 'user', content: texts.map((text) => ({ type: 'text', text })) });
    const session = [user('<system-reminder>context</system-reminder>', 'Ask a subagent to say hello.')];
    const answers = [];
    answers.push((await post(s.url, { messages: session })).status);
    answers.push((await post(s.url, { messages: [user('Say hello.')] })).status);
    answers.push((await post(s.url, { messages: [...session, { role: 'assistant', content: [] }, user('result')] })).status);
    answers.push(
      (await post(s.url, { messages: [...session, { role: 'assistant', content: [] }, user('a'), { role: 'assistant', content: [] }, user('b')] })).status,
    );
    answers.push((await post(s.url, { messages: [user('Something else.')] })).status);
    expect(answers).toEqual([200, 500, 200, 200, 400]);
    expect(s.requests.map((r) => r.answer)).toEqual(['tool', 'error 500', 'text', 'text', 'unscripted']);
  });
});
