import { afterEach, describe, expect, it } from 'vitest';
import { openai, startOpenAiStub, type OpenAiStep } from './openai-stub.js';
import type { ProviderStub } from './provider-stub.js';
import { parseSse, readUntil } from './sse.js';

const started: ProviderStub[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(...steps: OpenAiStep[]): Promise<ProviderStub> {
  const stub = await startOpenAiStub(steps);
  started.push(stub);
  return stub;
}

function post(url: string, body: Record<string, unknown> = { stream: true }, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-proj-secret' },
    body: JSON.stringify({ model: 'gpt-test', input: [], ...body }),
    ...init,
  });
}

const types = (text: string): string[] => parseSse(text).map((e) => e.event);

describe('the OpenAI Responses stub', () => {
  it('answers the n-th request with the n-th step, the last one after that; counts only POST /v1/responses', async () => {
    const s = await start(openai.serverError(), openai.text('ok'));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(s.url)).status);
    expect(statuses).toEqual([500, 200, 200]);
    expect((await fetch(`${s.url}/v1/analytics/codex/turn-costs`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(s.apiRequestCount()).toBe(3);
    expect(s.otherRequests().map((r) => r.path)).toEqual(['/v1/analytics/codex/turn-costs']);
  });

  it('answers each sender by its own script when lanes tell them apart, whatever order their requests come in', async () => {
    const s = await startOpenAiStub([openai.serverError()], {
      of: (headers) => headers['x-thread'] ?? null,
      steps: { parent: [openai.tool('spawn_agent', {}), openai.text('parent done')], child: [openai.text('child done')] },
    });
    started.push(s);
    const as = (thread?: string) =>
      post(s.url, { stream: true }, { headers: { 'content-type': 'application/json', ...(thread ? { 'x-thread': thread } : {}) } });
    // The child's first request comes between the parent's two; a sender without a lane takes the positional script.
    for (const thread of ['parent', 'child', 'child', 'parent', undefined]) await (await as(thread)).text();
    expect(s.requests.map((r) => [r.headers['x-thread'] ?? null, r.answer])).toEqual([
      ['parent', 'tool'],
      ['child', 'text'],
      ['child', 'text'],
      ['parent', 'text'],
      [null, 'error 500'],
    ]);
  });

  it('a streamed text answer: created, in_progress, output_item.added, content_part, output_text delta/done, output_item.done, completed with usage', async () => {
    const s = await start(openai.text('Hello'));
    const events = parseSse(await (await post(s.url)).text());
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => (e.data as { sequence_number: number }).sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.every((e) => (e.data as { type: string }).type === e.event)).toBe(true);
    expect(events[4]?.data).toMatchObject({ delta: 'Hello', item_id: 'msg_stub_0001' });
    expect(events[8]?.data).toMatchObject({
      response: {
        status: 'completed',
        model: 'gpt-test',
        usage: { input_tokens: 12, output_tokens: 9, total_tokens: 21 },
        output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hello' }] }],
      },
    });
  });

  it('a tool call: a function_call item whose arguments stream as function_call_arguments delta/done', async () => {
    const s = await start(openai.tool('exec_command', { cmd: 'echo hi' }));
    const events = parseSse(await (await post(s.url)).text());
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['response.function_call_arguments.delta', 'response.function_call_arguments.done']));
    const done = events.find((e) => e.event === 'response.output_item.done')?.data as { item: Record<string, unknown> };
    expect(done.item).toMatchObject({ type: 'function_call', name: 'exec_command', call_id: 'call_stub_0001' });
    expect(JSON.parse(String(done.item.arguments))).toEqual({ cmd: 'echo hi' });
  });

  it('errors: the documented {"error":{message,type,param,code}} with the status; retry-after on a 429', async () => {
    const s = await start(openai.rateLimited(2));
    const response = await post(s.url);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({
      error: { message: expect.stringContaining('Rate limit reached'), type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    for (const [step, status] of [
      [openai.overloaded(), 529],
      [openai.unauthorized(), 401],
      [openai.forbidden(), 403],
    ] as const) {
      const one = await start(step);
      expect((await post(one.url)).status).toBe(status);
    }
  });

  it('a usage limit is the 429 usage_limit_reached body with resets_at and resets_in_seconds', async () => {
    const s = await start(openai.usageLimit(1_800_003_600, 1_800_000_000));
    const response = await post(s.url);
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({
      error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: 1_800_003_600, resets_in_seconds: 3600 },
    });
  });

  it('failed: response.created, then response.failed carrying the error', async () => {
    const s = await start(openai.failed());
    const events = parseSse(await (await post(s.url)).text());
    expect(events.map((e) => e.event)).toEqual(['response.created', 'response.failed']);
    expect(events[1]?.data).toMatchObject({ response: { status: 'failed', error: { code: 'server_error' } } });
  });

  it('stall: response.created, then nothing; hang: no status line at all', async () => {
    const s = await start(openai.stall(), openai.hang());
    const body = (await post(s.url)).body;
    if (!body) throw new Error('no body');
    expect(types(await readUntil(body, (t) => t.includes('\n\n')))).toEqual(['response.created']);
    const abort = new AbortController();
    const pending = post(s.url, { stream: true }, { signal: abort.signal }).catch((error: Error) => error.name);
    await s.reached(2);
    abort.abort();
    expect(await pending).toBe('AbortError');
    await expect
      .poll(() => s.requests.every((r) => r.clientClosedEarly), { message: 'both requests to be seen closed by the client', timeout: 20_000 })
      .toBeTruthy();
    expect(s.requests.map((r) => r.answer)).toEqual(['stall', 'hang']);
  });

  it('without stream: the completed response object; the Authorization header is kept redacted', async () => {
    const s = await start(openai.text('plain'));
    expect(await (await post(s.url, { stream: false })).json()).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message' }] });
    expect(s.requests[0]?.headers.authorization).toBe('Bearer <redacted>');
  });
});
