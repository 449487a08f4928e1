import { describe, expect, it } from 'vitest';
import { distinctTailLength, ID_TAIL_MIN, idTail } from './run-ids.js';

describe('run ids told apart by their tails', () => {
  it('a bulk import’s ids, alike in front, read as their distinct tails', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `run_bulk${String(i).padStart(7, '0')}`);
    const length = distinctTailLength(ids);
    expect(length).toBe(ID_TAIL_MIN);
    expect(idTail('run_bulk0000999', length)).toBe('…000999');
    expect(new Set(ids.map((id) => idTail(id, length))).size).toBe(ids.length);
  });

  it('grows the tail just enough when two ids end alike, and keeps one length for the list', () => {
    expect(distinctTailLength(['run_aaaa1234567', 'run_bbbb1234567', 'run_cccc7654321'])).toBe(8);
    expect(distinctTailLength(['x'])).toBe(ID_TAIL_MIN);
    expect(distinctTailLength([])).toBe(ID_TAIL_MIN);
    // The same id twice is one id.
    expect(distinctTailLength(['run_1fbe3beb78874914', 'run_1fbe3beb78874914'])).toBe(ID_TAIL_MIN);
  });

  it('a short id is shown whole; a lone id by its last 8 characters', () => {
    expect(idTail('run_1')).toBe('run_1');
    expect(idTail('run_1fbe3beb78874914')).toBe('…78874914');
    expect(idTail('run_12345', 8)).toBe('run_12345');
  });

  it('the tails it picks tell hash-like ids apart, however many share a tail’s first digits', () => {
    // Knuth's multiplicative hash of the index: spread like random hex, the same on every run.
    const hex = (n: number): string => (Math.imul(n + 1, 2654435761) >>> 0).toString(16).padStart(8, '0');
    for (const count of [1, 2, 50, 400, 5000]) {
      for (const prefix of ['run_', 'ext-claude-code-']) {
        const ids = Array.from({ length: count }, (_, i) => `${prefix}${hex(i)}${hex(i * 7 + 3)}`);
        const length = distinctTailLength(ids);
        expect(length).toBeGreaterThanOrEqual(ID_TAIL_MIN);
        expect(new Set(ids.map((id) => idTail(id, length))).size, `${count} ids`).toBe(count);
        // And no shorter tail (above the floor) would do.
        if (length > ID_TAIL_MIN) expect(new Set(ids.map((id) => id.slice(-(length - 1)))).size).toBeLessThan(count);
      }
    }
  });
});
