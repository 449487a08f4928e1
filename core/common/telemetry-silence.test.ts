import { describe, expect, it } from 'vitest';
import { expectedEveryMs, SILENCE_READ, silenceDuration, silenceOf, silenceWords } from './telemetry-silence.js';

/** Each source's interval, the twice-its-interval boundary, and the words the CLI and the window share. */

const T = Date.UTC(2026, 10, 29, 9, 0);

describe('telemetry silence', () => {
  it("knows each CLI exporter's interval, and the OpenTelemetry SDK default for any other sender", () => {
    expect(expectedEveryMs('runtime:claude-code')).toBe(5_000);
    expect(expectedEveryMs('runtime:codex-cli')).toBe(1_000);
    expect(expectedEveryMs('runtime:weather-agent')).toBe(5_000);
  });

  it("the store's read skips no source that could be silent: only the fast origin is read at its shorter interval", () => {
    expect(expectedEveryMs(SILENCE_READ.fastOrigin)).toBe(SILENCE_READ.fastEveryMs);
    for (const origin of ['runtime:claude-code', 'runtime:weather-agent', 'runtime:unknown'])
      expect(expectedEveryMs(origin)).toBeGreaterThanOrEqual(SILENCE_READ.othersEveryMs);
  });

  it('is silent only past twice the interval', () => {
    expect(silenceOf('runtime:claude-code', T, T, T + 10_000)).toBeNull();
    expect(silenceOf('runtime:claude-code', T, T, T + 10_001)).toEqual({
      origin: 'runtime:claude-code',
      lastSeenAt: T,
      silentSince: T,
      silentMs: 10_001,
      expectedEveryMs: 5_000,
    });
    expect(silenceOf('runtime:codex-cli', T, T, T + 2_000)).toBeNull();
    expect(silenceOf('runtime:codex-cli', T, T, T + 2_001)?.silentMs).toBe(2_001);
    // Never heard from: silent since it was expected to start.
    expect(silenceOf('runtime:claude-code', null, T, T + 60_000)).toMatchObject({ lastSeenAt: null, silentSince: T, silentMs: 60_000 });
  });

  it('says it in whole units, rounded down', () => {
    expect([999, 45_900, 60_000, 4 * 60_000 + 59_999, 3_600_000, 2 * 3_600_000 + 5 * 60_000].map(silenceDuration)).toEqual([
      '0 s',
      '45 s',
      '1 min',
      '4 min',
      '1 h 00 min',
      '2 h 05 min',
    ]);
    expect(silenceWords({ lastSeenAt: T, silentMs: 4 * 60_000, expectedEveryMs: 5_000 })).toBe('no telemetry for 4 min (expected every 5 s)');
    expect(silenceWords({ lastSeenAt: null, silentMs: 4 * 60_000, expectedEveryMs: 1_000 })).toBe(
      'no telemetry since the attempt started 4 min ago (expected every 1 s)',
    );
  });
});
