import { describe, expect, it } from 'vitest';
import { NumbersFirst } from './load-charts.js';

/**
 * The Errors page's charts wait for its numbers: the gate opens once every part it waits for has
 * drawn, tells its charts once, and stays open (e2e/errors.test.ts sees the drawing itself).
 */
describe('NumbersFirst', () => {
  it('opens only after every part has drawn, whatever their order, and tells each listener once', () => {
    for (const order of [
      ['issues', 'occurrences'],
      ['occurrences', 'issues'],
    ]) {
      const gate = new NumbersFirst(['issues', 'occurrences']);
      const told: string[] = [];
      gate.subscribe(() => told.push('a'));
      const stop = gate.subscribe(() => told.push('b'));
      stop();
      gate.shown(order[0] as string);
      expect([gate.isOpen(), told]).toEqual([false, []]);
      // The same part again (a later read) and a part nobody waits for change nothing.
      gate.shown(order[0] as string);
      gate.shown('cost');
      expect([gate.isOpen(), told]).toEqual([false, []]);
      gate.shown(order[1] as string);
      expect([gate.isOpen(), told]).toEqual([true, ['a']]);
      // Open for good: a refresh's parts tell nobody again.
      gate.shown(order[1] as string);
      gate.shown(order[0] as string);
      expect([gate.isOpen(), told]).toEqual([true, ['a']]);
    }
  });

  it('gives up waiting for a part that never draws, telling its listeners once', () => {
    const gate = new NumbersFirst(['issues', 'occurrences']);
    const told: string[] = [];
    gate.subscribe(() => told.push('a'));
    gate.shown('issues');
    gate.giveUp();
    expect([gate.isOpen(), told]).toEqual([true, ['a']]);
    gate.giveUp();
    gate.shown('occurrences');
    expect(told).toEqual(['a']);
  });
});
