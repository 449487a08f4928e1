import { describe, expect, it } from 'vitest';
import { streamTotals } from './load-beside.js';

describe("the loaded screens' stream totals", () => {
  it('are the JSON line the client prints last', () => {
    const printed = 'streaming\n{"records":5000,"accepted":4990,"late":2,"elapsedMs":1000}\n';
    expect(streamTotals(printed, 0)).toEqual({ records: 5000, accepted: 4990, late: 2, elapsedMs: 1000 });
  });

  it('fail the bench, naming the exit code and the last line, when the client died before printing them', () => {
    expect(() => streamTotals('streaming\n', 1)).toThrow('the OTLP stream client ended (exit code 1) without its totals; its last line: "streaming"');
    expect(() => streamTotals('', null)).toThrow('the OTLP stream client ended (exit code null) without its totals; its last line: ""');
  });

  it('fail it when a total is missing or not a number', () => {
    expect(() => streamTotals('{"records":5000,"accepted":4990,"late":2}', 0)).toThrow('without its totals');
    expect(() => streamTotals('{"records":5000,"accepted":"many","late":2,"elapsedMs":1000}', 0)).toThrow('without its totals');
    expect(() => streamTotals('null', 0)).toThrow('without its totals');
  });
});
