import { describe, expect, it } from 'vitest';
import { decodeOtlp } from '../../core/otel/receive/decode.js';
import { GENAI_CLIENT_PINS, GENAI_PROTOBUF_SCENARIOS, GENAI_SCENARIOS } from '../genai-client/genai-client.js';
import { genAiFixtureId, genAiFixtureIds, readGenAiFixture } from './genai-fixtures.js';
import { APP_SCENARIOS, appPackages } from '../genai-sdks/apps.js';

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
      expect(
        records.every((r) => r.span?.conversationId === `conv-${fixture.run.scenario}` && r.span.task !== null),
        id,
      ).toBe(true);
    }
  });
});

describe('the recorded GenAI SDK apps (genai-sdks/apps.ts)', () => {
  it.each(['ai-sdk', 'traceloop', 'openinference'] as const)(
    '%s: every scenario is recorded, by the packages the app runs with now (bump one, then npm run record-genai-fixtures)',
    (app) => {
      const family = `genai-${app}`;
      expect(genAiFixtureIds(family)).toEqual(Object.keys(APP_SCENARIOS[app]).sort());
      for (const id of genAiFixtureIds(family)) {
        const fixture = readGenAiFixture(id, family)!;
        expect(fixture.run.packages, id).toEqual(appPackages(app));
        // A refused call through the openai SDK's instrumentations sent nothing (docs/otel.md); every other run sent spans.
        if (id.endsWith('openai-unauthorized')) expect(fixture.bodies, id).toEqual([]);
        else expect(fixture.bodies.length, id).toBeGreaterThan(0);
        // Each export decodes (JSON or protobuf, as it was sent).
        for (const [i, body] of fixture.bodies.entries())
          expect(() => decodeOtlp('traces', fixture.run.exports[i]?.contentType.includes('protobuf') ? 'protobuf' : 'json', body), id).not.toThrow();
      }
    },
  );
});
