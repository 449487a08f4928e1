import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../base/clock.js';
import { NoopRuntime } from './noop.js';
import type { AttemptResult } from './runtime.js';
import { agent, attempt, NEVER } from './testing.js';

const noopAgent = agent({ name: 'bench', runtime: 'noop' });

function failure(result: AttemptResult) {
  if (result.kind !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('noop runtime (in process)', () => {
  const noop = new NoopRuntime({ clock: new VirtualClock() });
  const play = (simulate: string | null, overrides: Parameters<typeof attempt>[0] = {}) =>
    noop.execute(attempt({ simulate, agent: noopAgent, ...overrides }), NEVER);

  it('interprets the simulated outcomes as the fake agent does, origins runtime:noop', async () => {
    expect(await play(null)).toEqual({ kind: 'succeeded', output: 'ok: Write the plan', meta: { changes: 1 } });
    expect(await play('ok:done')).toEqual({ kind: 'succeeded', output: 'done', meta: { changes: 1 } });
    const codes = [];
    for (const simulate of ['rate_limit', 'timeout', 'crash', 'exit:2', 'malformed']) {
      const error = failure(await play(simulate));
      expect(error.origin).toBe('runtime:noop');
      codes.push(error.code);
    }
    expect(codes).toEqual(['RUNTIME_RATE_LIMIT', 'RUNTIME_TIMEOUT', 'RUNTIME_CRASHED', 'RUNTIME_CRASHED', 'RUNTIME_OUTPUT_MALFORMED']);
    expect(failure(await play('no_changes'))).toMatchObject({ code: 'AGENT_NO_CHANGES', origin: 'agent:bench' });
  });

  it('plays one outcome per attempt, the last repeating', async () => {
    const kinds = [];
    for (let n = 1; n <= 3; n++) {
      const result = await play('rate_limit, ok', { attempt: n });
      kinds.push(result.kind === 'failed' ? result.error.code : result.kind);
    }
    expect(kinds).toEqual(['RUNTIME_RATE_LIMIT', 'succeeded', 'succeeded']);
  });

  it('waits for slow:<d> on the injected clock', async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const result = await new NoopRuntime({ clock }).execute(attempt({ simulate: 'slow:30s', agent: noopAgent }), NEVER);
    expect(result).toMatchObject({ kind: 'succeeded', output: 'ok: Write the plan' });
    expect(clock.sleeps).toEqual([30_000]);
    expect(clock.now() - start).toBe(30_000);
  });

  it('cuts a slow attempt at its timeout, as the subprocess would be', async () => {
    const clock = new VirtualClock();
    const error = failure(await new NoopRuntime({ clock }).execute(attempt({ simulate: 'slow:1h', timeoutMs: 1_000, agent: noopAgent }), NEVER));
    expect(clock.sleeps).toEqual([1_000]);
    expect(error.code).toBe('RUNTIME_TIMEOUT');
    expect(error.message).toBe('runtime noop exceeded its timeout of 1000ms');
  });

  it('is cancelled when its signal aborts during a slow wait', async () => {
    const controller = new AbortController();
    const pending = new NoopRuntime().execute(attempt({ simulate: 'slow:1h', agent: noopAgent }), controller.signal);
    controller.abort();
    expect(await pending).toEqual({ kind: 'cancelled' });
  });

  it('is cancelled at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await noop.execute(attempt({ agent: noopAgent }), controller.signal)).toEqual({ kind: 'cancelled' });
  });

  it('rejects an invalid script as USER_INVALID_FLOW', async () => {
    expect(failure(await play('exit:999'))).toMatchObject({ code: 'USER_INVALID_FLOW', origin: 'user' });
  });

  it('gives an agent name that is no valid origin a valid one', async () => {
    const error = failure(await noop.execute(attempt({ simulate: 'no_changes', agent: agent({ name: 'my agent/1', runtime: 'noop' }) }), NEVER));
    expect(error.origin).toBe('agent:my_agent_1');
  });
});
