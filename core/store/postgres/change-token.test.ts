import { describe, expect, it } from 'vitest';
import { ChangeToken } from './change-token.js';

const positions = (first: number, last: number): number[] => Array.from({ length: last - first + 1 }, (_, i) => first + i);

describe('ChangeToken', () => {
  it('stays as it was while only this store committed since the last read', () => {
    const token = new ChangeToken();
    expect(token.report(4)).toBe(4);
    token.committed(positions(5, 7));
    token.committed(positions(8, 8));
    expect(token.report(8)).toBe(4);
    token.committed(positions(9, 12));
    expect(token.report(12)).toBe(4);
  });

  it('moves when another connection committed before, between or after this store’s batches', () => {
    const token = new ChangeToken();
    expect(token.report(4)).toBe(4);
    // 5 is another connection's, then this store's 6–7: the head read is its own, and still it moves.
    token.committed(positions(6, 7));
    expect(token.report(7)).toBe(7);
    token.committed(positions(8, 9));
    token.committed(positions(11, 12));
    expect(token.report(12)).toBe(12);
    token.committed(positions(13, 13));
    expect(token.report(14)).toBe(14);
  });

  it('moves for a head read before its batch was recorded, and does not take that batch for a later one', () => {
    const token = new ChangeToken();
    expect(token.report(1)).toBe(1);
    expect(token.report(3)).toBe(3); // this store's 2–3 committed, its COMMIT's answer not back yet
    token.committed(positions(2, 3));
    token.committed(positions(4, 4));
    expect(token.report(4)).toBe(3);
  });

  it('takes a batch that is not contiguous for another connection’s commit', () => {
    const token = new ChangeToken();
    expect(token.report(1)).toBe(1);
    token.committed([2, 4]);
    expect(token.report(4)).toBe(4);
  });

  it('keeps at most 10,000 batches, forgetting the oldest (which then reads as a change)', () => {
    const token = new ChangeToken();
    expect(token.report(0)).toBe(0);
    for (let at = 1; at <= 10_001; at += 1) token.committed([at]);
    expect(token.report(10_001)).toBe(10_001);
  });
});
