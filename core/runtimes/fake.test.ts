import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HivewatchError } from '../base/errors/hivewatch-error.js';
import { FAKE_AGENT_PATH, FakeRuntime } from './fake.js';
import { NoopRuntime } from './noop.js';
import { runProcess } from './process/process.js';
import type { AttemptResult } from './runtime.js';
import { agent, attempt, NEVER } from './testing.js';

const fake = new FakeRuntime({ killGraceMs: 300 });
const fakeAgent = agent({ name: 'coder', runtime: 'fake' });

function play(simulate: string | null, overrides: Parameters<typeof attempt>[0] = {}, signal = NEVER): Promise<AttemptResult> {
  return fake.execute(attempt({ simulate, agent: fakeAgent, ...overrides }), signal);
}

function failure(result: AttemptResult): HivewatchError {
  if (result.kind !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('fake runtime (a real subprocess)', () => {
  it('finds its script beside the module', () => {
    expect(FAKE_AGENT_PATH.endsWith('core/runtimes/fake-agent.js')).toBe(true);
    expect(existsSync(FAKE_AGENT_PATH)).toBe(true);
  });

  it('ok: echoes the prompt', async () => {
    expect(await play('ok')).toEqual({
      kind: 'succeeded',
      output: 'ok: Write the plan',
      meta: { changes: 1 },
      process: { exitCode: 0, signal: null, stdout: '{"result":"ok: Write the plan","changes":1}\n', stderr: '' },
    });
    expect(await play(null)).toMatchObject({ kind: 'succeeded', output: 'ok: Write the plan', meta: { changes: 1 } });
  });

  it('ok: shortens a long prompt to 80 characters', async () => {
    const result = await play('ok', { prompt: 'x'.repeat(200) });
    expect(result).toMatchObject({ kind: 'succeeded', output: `ok: ${'x'.repeat(79)}…` });
  });

  it('ok:<text> answers the text', async () => {
    expect(await play('ok:the answer')).toMatchObject({ kind: 'succeeded', output: 'the answer', meta: { changes: 1 } });
  });

  it('rate_limit: RUNTIME_RATE_LIMIT from runtime:fake', async () => {
    const error = failure(await play('rate_limit'));
    expect(error.code).toBe('RUNTIME_RATE_LIMIT');
    expect(error.origin).toBe('runtime:fake');
    expect(error.message).toBe('runtime fake was rate limited: Error: 429 Too Many Requests (rate limit exceeded)');
  });

  it('timeout: RUNTIME_TIMEOUT (exit 124)', async () => {
    const error = failure(await play('timeout'));
    expect(error.code).toBe('RUNTIME_TIMEOUT');
    expect(error.message).toBe('runtime fake reported a timeout (exit 124)');
  });

  it('crash: a real SIGSEGV, RUNTIME_CRASHED', async () => {
    const error = failure(await play('crash'));
    expect(error.code).toBe('RUNTIME_CRASHED');
    expect(error.message).toBe('runtime fake was killed by SIGSEGV');
  });

  it('exit:3: RUNTIME_CRASHED with its stderr', async () => {
    const error = failure(await play('exit:3'));
    expect(error.code).toBe('RUNTIME_CRASHED');
    expect(error.message).toBe('runtime fake exited with code 3: fake agent exiting with code 3');
  });

  it('malformed: RUNTIME_OUTPUT_MALFORMED', async () => {
    const error = failure(await play('malformed'));
    expect(error.code).toBe('RUNTIME_OUTPUT_MALFORMED');
    expect(error.origin).toBe('runtime:fake');
  });

  it('no_changes: AGENT_NO_CHANGES attributed to the agent', async () => {
    const error = failure(await play('no_changes'));
    expect(error.code).toBe('AGENT_NO_CHANGES');
    expect(error.origin).toBe('agent:coder');
    expect(error.message).toBe('agent coder completed without producing changes: nothing to do');
  });

  it('slow: an abort cancels it at once', async () => {
    const controller = new AbortController();
    const pending = play('slow:1h', {}, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ kind: 'cancelled' });
  });

  it('slow: a timeout shorter than the work ends it as RUNTIME_TIMEOUT', async () => {
    const error = failure(await play('slow:1h', { timeoutMs: 200 }));
    expect(error.code).toBe('RUNTIME_TIMEOUT');
    expect(error.message).toBe('runtime fake exceeded its timeout of 200ms');
  });

  it('slow: finishes as ok when it has the time', async () => {
    expect(await play('slow:10ms')).toMatchObject({ kind: 'succeeded', output: 'ok: Write the plan' });
  });

  it('plays one outcome per attempt, the last repeating', async () => {
    const outcomes: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const result = await play('rate_limit, timeout, ok:third', { attempt: n });
      outcomes.push(result.kind === 'failed' ? result.error.code : result.kind === 'succeeded' ? result.output : result.kind);
    }
    expect(outcomes).toEqual(['RUNTIME_RATE_LIMIT', 'RUNTIME_TIMEOUT', 'third', 'third']);
  });

  it('rejects an invalid script as USER_INVALID_FLOW without starting anything', async () => {
    const error = failure(await play('explode'));
    expect(error.code).toBe('USER_INVALID_FLOW');
    expect(error.message).toMatch(/^invalid simulate "explode": unknown simulated outcome "explode"/);
  });

  it('gives the same error twice (journals of two runs must match)', async () => {
    for (const simulate of ['rate_limit', 'crash', 'exit:3', 'malformed', 'no_changes']) {
      const [a, b] = [failure(await play(simulate)), failure(await play(simulate))];
      expect(a.toEnvelope()).toEqual(b.toEnvelope());
      expect(a.context.durationMs ?? 0).toBe(0);
    }
  });

  it('gives what noop gives, runtime name aside', async () => {
    const noop = new NoopRuntime();
    // noop spawns nothing: the fake's process trace is the one difference besides the name.
    const swap = (result: AttemptResult): unknown =>
      JSON.parse(
        JSON.stringify({ ...result, process: undefined })
          .replaceAll('runtime:fake', 'runtime:X')
          .replaceAll('runtime fake', 'runtime X')
          .replaceAll('runtime:noop', 'runtime:X')
          .replaceAll('runtime noop', 'runtime X'),
      );
    for (const simulate of ['ok', 'ok:text', 'rate_limit', 'timeout', 'crash', 'exit:3', 'exit:0', 'malformed', 'no_changes']) {
      const request = attempt({ simulate, agent: fakeAgent });
      expect(swap(await noop.execute(request, NEVER)), simulate).toEqual(swap(await fake.execute(request, NEVER)));
    }
  });
});

describe('fake-agent.js run directly', () => {
  const direct = (env: Record<string, string>) =>
    runProcess({ argv: [process.execPath, FAKE_AGENT_PATH], runtimeName: 'fake', env: { ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: '', ...env } });

  it('prints the JSON result documented for ok', async () => {
    const r = await direct({ HIVEWATCH_FAKE_SIMULATE: 'ok', HIVEWATCH_FAKE_PROMPT: 'hi', HIVEWATCH_FAKE_ATTEMPT: '1' });
    expect(r).toMatchObject({ exitCode: 0, stdout: '{"result":"ok: hi","changes":1}\n', stderr: '' });
  });

  it('defaults to ok and attempt 1, and exits 2 on a bad script', async () => {
    expect((await direct({})).stdout).toBe('{"result":"ok: ","changes":1}\n');
    const bad = await direct({ HIVEWATCH_FAKE_SIMULATE: 'nope' });
    expect(bad).toMatchObject({ exitCode: 2, stderr: 'fake agent: unknown simulated outcome "nope"\n' });
  });
});
