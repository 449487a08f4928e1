import { describe, expect, it } from 'vitest';
import { figuresSourceWords } from './attempt-figures.js';

/** A preset attempt says which report its figures are: the CLI's result, with or without its telemetry beside it. */

const telemetry = [{ runId: 'ext-1', sessionId: 's-1', origin: 'runtime:claude-code', apiCalls: 2, errors: 1 }];

describe('which report an attempt used', () => {
  it("says the CLI's result, and whether its telemetry arrived", () => {
    expect(figuresSourceWords({ usage: { source: 'result', inputTokens: 12 } })).toBe(
      "Figures from the CLI's own result: no telemetry arrived from inside this attempt.",
    );
    expect(figuresSourceWords({ usage: { source: 'result', inputTokens: 12 }, telemetry })).toBe(
      "Figures from the CLI's own result; its telemetry below lists the requests, not counted again.",
    );
  });

  it('says nothing for an agent session (its figures are its telemetry) or an attempt that reported no usage', () => {
    expect(figuresSourceWords({ usage: { source: 'telemetry', inputTokens: 12 } })).toBeNull();
    expect(figuresSourceWords({ telemetry })).toBeNull();
  });
});
