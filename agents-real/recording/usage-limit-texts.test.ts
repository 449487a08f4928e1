import { describe, expect, it } from 'vitest';
import { parseUsageLimit } from '../../core/base/errors/usage-limit.js';
import { allFixtureRefs, fixtureLabel, readFixture, type LoadedFixture } from './fixtures-io.js';
import type { CliName } from '../pins.js';

/**
 * The reset texts the real CLIs printed, as recorded: a reset later the same day prints as a
 * time, one on another day as a date and a time, both to the minute. Whichever the hour of a live
 * run gives, the preset's parser must read both back to the end of the minute that holds the
 * instant the provider stub sent (the stub sends one on the minute, so a minute after it: never
 * before the reset). These recordings, of the pinned versions and the older ones kept, pin both
 * forms without depending on the hour the suite runs.
 */

interface LimitText {
  text: string;
  resetMs: number;
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function limitText(cli: CliName, fixture: LoadedFixture): LimitText {
  const step = fixture.run.script[0] as { headers?: Record<string, string>; error?: { resets_at: number } };
  if (cli === 'claude-code') {
    const result = jsonLines(fixture.stdout).find((line) => line.type === 'result');
    return { text: String(result?.result), resetMs: Number(step.headers?.['anthropic-ratelimit-unified-reset']) * 1000 };
  }
  const failed = jsonLines(fixture.stdout).find((line) => line.type === 'turn.failed') as { error?: { message?: string } } | undefined;
  return { text: String(failed?.error?.message), resetMs: (step.error?.resets_at ?? NaN) * 1000 };
}

/** Fixtures whose output the presets read (the JSON stream, Claude Code's result object). */
function limitFixtures(cli: CliName): { id: string; fixture: LoadedFixture }[] {
  return allFixtureRefs(cli)
    .filter((ref) => ref.id.startsWith('usage-limit') && !ref.id.includes('.plain-out.'))
    .map((ref) => ({ id: fixtureLabel(ref), fixture: readFixture(cli, ref.id, ref.version) as LoadedFixture }));
}

const FORMS: Record<CliName, { sameDay: RegExp; otherDay: RegExp }> = {
  'claude-code': { sameDay: / · resets \d{1,2}(?::\d{2})?[ap]m \(UTC\)$/, otherDay: / · resets [A-Z][a-z]{2} \d{1,2}, \d{1,2}(?::\d{2})?[ap]m \(UTC\)$/ },
  'codex-cli': {
    sameDay: / try again at \d{1,2}:\d{2} [AP]M\.$/,
    otherDay: / try again at [A-Z][a-z]{2} \d{1,2}(?:st|nd|rd|th), \d{4} \d{1,2}:\d{2} [AP]M\.$/,
  },
};

describe.each(['claude-code', 'codex-cli'] as const)('%s usage-limit texts as recorded', (cli) => {
  const fixtures = limitFixtures(cli);

  it('holds both forms: a reset the same day and one on another day', () => {
    const scenarios = new Set(fixtures.map((f) => f.fixture.run.spec.scenario));
    expect([...scenarios].sort()).toEqual(['usage-limit', 'usage-limit-next-day']);
  });

  it.each(fixtures.map((f) => [f.id, f.fixture] as const))('%s: the form its day calls for, read back to the reset the stub sent', (_id, fixture) => {
    const { text, resetMs } = limitText(cli, fixture);
    const nextDay = fixture.run.spec.scenario === 'usage-limit-next-day';
    expect(text).toMatch(nextDay ? FORMS[cli].otherDay : FORMS[cli].sameDay);
    const now = Date.parse(fixture.run.recordedAt);
    expect(resetMs % 60_000).toBe(0);
    expect(parseUsageLimit(text, { now, timeZone: 'UTC' })?.resetAt).toBe(resetMs + 60_000);
  });
});
