import { describe, expect, it } from 'vitest';
import { BenchFlagError, parseBenchFlags, wholeOption } from './flags.js';

describe('bench flags', () => {
  it('reads --quick, --json and --only', () => {
    expect(parseBenchFlags(['--quick', '--only', 'store'])).toEqual({ kind: 'run', quick: true, json: false, only: 'store', benchArgs: ['--quick'] });
    expect(parseBenchFlags([])).toEqual({ kind: 'run', quick: false, json: false, only: null, benchArgs: [] });
  });

  it('refuses a misspelt flag instead of running the full workload', () => {
    expect(() => parseBenchFlags(['--quik'])).toThrow(BenchFlagError);
    expect(() => parseBenchFlags(['--quik'])).toThrow("Unknown option '--quik'");
  });

  it('refuses an unknown bench name and a stray word', () => {
    expect(() => parseBenchFlags(['--only', 'stor'])).toThrow('unknown bench "stor": one of engine, store,');
    expect(() => parseBenchFlags(['store'])).toThrow(BenchFlagError);
  });

  it("passes each bench's own options on only to that bench", () => {
    expect(parseBenchFlags(['--only', 'history', '--samples', '30', '--quick'])).toMatchObject({ only: 'history', benchArgs: ['--samples', '30', '--quick'] });
    expect(() => parseBenchFlags(['--only', 'store', '--samples', '30'])).toThrow('--samples is read only by --only ui or --only history or --only triage');
    expect(() => parseBenchFlags(['--only', 'history', '--baseline-samples', '3'])).toThrow('--baseline-samples is read only by --only triage');
    expect(parseBenchFlags(['--only', 'triage', '--samples', '20', '--baseline-samples', '3'])).toMatchObject({
      only: 'triage',
      benchArgs: ['--samples', '20', '--baseline-samples', '3'],
    });
    expect(parseBenchFlags(['--only', 'postgres-errors', '--errors', '10000000'])).toMatchObject({
      only: 'postgres-errors',
      benchArgs: ['--errors', '10000000'],
    });
    expect(() => parseBenchFlags(['--only', 'postgres', '--errors', '10000000'])).toThrow(
      '--errors is read only by --only ui or --only history or --only triage or --only postgres-errors',
    );
  });

  it('answers --help without running anything', () => {
    expect(parseBenchFlags(['--help'])).toEqual({ kind: 'help' });
    expect(parseBenchFlags(['-h'])).toEqual({ kind: 'help' });
  });

  it('reads a counting option as a positive whole number, its default when absent, and refuses anything else by name', () => {
    expect(wholeOption(undefined, 'samples', 20)).toBe(20);
    expect(wholeOption('10000000', 'errors', 1)).toBe(10_000_000);
    for (const bad of ['0', '-3', '1.5', 'ten', '', ' ', '1e400']) {
      expect(() => wholeOption(bad, 'errors', 1)).toThrow(BenchFlagError);
      expect(() => wholeOption(bad, 'errors', 1)).toThrow(`--errors takes a positive whole number, not "${bad}"`);
    }
  });
});
