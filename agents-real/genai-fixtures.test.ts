import { describe, expect, it } from 'vitest';
import { decodeOtlp } from '../core/otel/decode.js';
import { GENAI_CLIENT_PINS, GENAI_SCENARIOS } from './genai-client.js';
import { genAiFixtureScenarios, readGenAiFixture } from './genai-fixtures.js';

/** The GenAI client's recordings are those of its scenarios, made with the pinned packages, and decode. */

describe('the recorded GenAI client fixtures', () => {
  it('every scenario is recorded, by the pinned packages (bump a pin, then npm run record-genai-fixtures)', () => {
    expect(genAiFixtureScenarios()).toEqual(Object.keys(GENAI_SCENARIOS).sort());
    for (const scenario of genAiFixtureScenarios()) expect(readGenAiFixture(scenario)?.run.packages, scenario).toEqual(GENAI_CLIENT_PINS);
  });

  it('every export decodes into GenAI span records, each with its conversation and task', () => {
    for (const scenario of genAiFixtureScenarios()) {
      const fixture = readGenAiFixture(scenario)!;
      expect(fixture.bodies.length, scenario).toBeGreaterThan(0);
      const records = fixture.bodies.flatMap((body) => decodeOtlp('traces', 'json', body));
      expect(records.every((r) => r.span?.conversationId === `conv-${scenario}` && r.span.task !== null), scenario).toBe(true);
    }
  });
});
