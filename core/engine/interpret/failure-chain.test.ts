import { describe, expect, it } from 'vitest';
import { HivewatchError, parseEnvelope } from '../../base/errors/hivewatch-error.js';
import { FailureChain, Occurrence } from './failure-chain.js';
import { FlowFailure } from './thread-failures.js';

const crash = (message: string): HivewatchError => new HivewatchError('RUNTIME_CRASHED', { message, origin: 'runtime:test' });

describe('FailureChain', () => {
  it('nests every link in the one before it, lists them flat with their seqs, and survives the wire', () => {
    const root = new Occurrence();
    root.seq = 4;
    const chain = FailureChain.of(crash('outer'), new Occurrence()).causedBy('finally-failed', FailureChain.of(crash('inner'), root).rethrown());
    const envelope = chain.envelope();
    expect(envelope.message).toBe('outer');
    expect(envelope.cause?.message).toBe('inner');
    expect(envelope.cause?.cause).toBeUndefined();
    expect(parseEnvelope(JSON.parse(JSON.stringify(envelope)))).toEqual(envelope);
    expect(chain.flat().map((l) => [l.seq, l.message, l.how, l.rethrown ?? false])).toEqual([
      [null, 'outer', 'finally-failed', false],
      [4, 'inner', null, true],
    ]);
    expect(chain.error.causedBy?.message).toBe('inner');
  });

  it('reads a retry-limit chain back from an envelope (a replayed task on resume), with no seqs of this run', () => {
    const last = crash('exit 1');
    const limit = new HivewatchError('POLICY_RETRY_LIMIT_EXCEEDED', { message: 'gave up', origin: 'policy', causedBy: last });
    const chain = FailureChain.fromEnvelope(limit.toEnvelope());
    expect(chain.flat().map((l) => [l.code, l.how, l.seq])).toEqual([
      ['POLICY_RETRY_LIMIT_EXCEEDED', 'retry-limit', null],
      ['RUNTIME_CRASHED', null, null],
    ]);
    expect(chain.envelope()).toEqual(limit.toEnvelope());
  });

  it("is carried as a FlowFailure that is the chain's own error: same code, message and envelope", () => {
    const inner = FailureChain.of(crash('inner'));
    const thrown = new HivewatchError('USER_THROWN', { message: 'outer', origin: 'user', context: { line: 3, column: 1 } });
    const chain = FailureChain.of(thrown).causedBy('thrown-in-catch', inner);
    const failure = new FlowFailure(chain, 7);
    expect(failure).toBeInstanceOf(HivewatchError);
    expect(failure).toMatchObject({ code: 'USER_THROWN', category: 'user', message: 'outer', name: 'FlowFailure', rank: 7 });
    expect(failure.toEnvelope()).toEqual(chain.envelope());
    expect(failure.error).toBe(chain.error);
  });
});
