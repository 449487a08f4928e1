import { describe, expect, it } from 'vitest';
import { uiPerfFlags } from './ui-perf.js';

describe('ui-perf flags', () => {
  it('reads --quick and --json', () => {
    expect(uiPerfFlags(['--quick', '--json'])).toEqual({ quick: true, json: true });
    expect(uiPerfFlags([])).toEqual({ quick: false, json: false });
  });

  it('refuses a misspelt flag instead of measuring the full workload', () => {
    expect(() => uiPerfFlags(['--quik'])).toThrow("Unknown option '--quik'");
    expect(() => uiPerfFlags(['quick'])).toThrow('Unexpected argument');
  });

  it("takes the history bench's options that bench/main.ts passes to both UI benches", () => {
    expect(uiPerfFlags(['--samples', '30', '--filter-samples', '4', '--errors', '1000', '--screens', 'cost', '--quick'])).toEqual({ quick: true, json: false });
  });
});
