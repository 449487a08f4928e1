import { describe, expect, it } from 'vitest';
import { decodeOtlp } from '../core/otel/decode.js';
import { GENAI_CLIENT_PINS, GENAI_PROTOBUF_SCENARIOS, GENAI_SCENARIOS } from './genai-client.js';
import { genAiFixtureId, genAiFixtureIds, readGenAiFixture } from './genai-fixtures.js';

/** The GenAI client's recordings are those of its scenarios, made with the pinned packages, and decode. */

describe('the recorded GenAI client fixtures', () => {
  it('every scenario is recorded, by the pinned packages (bump a pin, then npm run record-genai-fixtures)', () => {
    const expected = [...Object.keys(GENAI_SCENARIOS), ...GENAI_PROTOBUF_SCENARIOS.map((s) => genAiFixtureId(s, 'http/protobuf'))];
    expect(genAiFixtureIds()).toEqual(expected.sort());
    for (const id of genAiFixtureIds()) expect(readGenAiFixture(id)?.run.packages, id).toEqual(GENAI_CLIENT_PINS);
  });

  it('every export decodes into GenAI span records, each with its conversation and task, JSON and protobuf alike', () => {
    for (const id of genAiFixtureIds()) {
      const fixture = readGenAiFixture(id)!;
      expect(fixture.bodies.length, id).toBeGreaterThan(0);
      const records = fixture.bodies.flatMap((body) => decodeOtlp('traces', fixture.run.protocol === 'http/protobuf' ? 'protobuf' : 'json', body));
      expect(records.length, id).toBeGreaterThan(0);
      expect(records.every((r) => r.span?.conversationId === `conv-${fixture.run.scenario}` && r.span.task !== null), id).toBe(true);
    }
  });
});
