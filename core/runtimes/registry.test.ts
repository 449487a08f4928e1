import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../base/clock.js';
import { RUNTIME_KINDS, type RuntimeKind } from '../flow/plan/plan.js';
import { createRuntimeRegistry } from './registry.js';
import { agent, attempt, NEVER } from './testing.js';

describe('createRuntimeRegistry', () => {
  it('maps every runtime kind an agent may name to its runtime', () => {
    const registry = createRuntimeRegistry();
    const names = RUNTIME_KINDS.map((runtime) => registry.forAgent(agent({ runtime })).name);
    expect(names).toEqual(['command', 'fake', 'claude-code', 'codex-cli', 'noop']);
  });

  it('shares one instance per kind', () => {
    const registry = createRuntimeRegistry();
    expect(registry.forAgent(agent({ runtime: 'fake', name: 'a' }))).toBe(registry.forAgent(agent({ runtime: 'fake', name: 'b' })));
  });

  it('gives noop the injected clock', async () => {
    const clock = new VirtualClock();
    const registry = createRuntimeRegistry({ clock });
    const noopAgent = agent({ runtime: 'noop' });
    const result = await registry.forAgent(noopAgent).execute(attempt({ agent: noopAgent, simulate: 'slow:5m' }), NEVER);
    expect(result.kind).toBe('succeeded');
    expect(clock.sleeps).toEqual([300_000]);
  });

  it('fails an attempt of an unknown kind as a configuration error instead of throwing', async () => {
    const odd = agent({ runtime: 'gemini' as RuntimeKind, name: 'g' });
    const result = await createRuntimeRegistry()
      .forAgent(odd)
      .execute(attempt({ agent: odd }), NEVER);
    expect(result).toMatchObject({
      kind: 'failed',
      error: { code: 'USER_INVALID_CONFIG', message: 'agent "g" names runtime "gemini", which this version does not have' },
    });
  });
});
