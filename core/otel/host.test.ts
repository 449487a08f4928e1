import { describe, expect, it } from 'vitest';
import { otelIdleOf, OTEL_IDLE_ENV } from './host.js';
import { DEFAULT_QUIET_MS } from './receive/ingest.js';

describe('otelIdleOf: the quiet period that ends an agent session', () => {
  it('is 2 minutes unless --otel-idle or HIVEWATCH_OTEL_IDLE says otherwise; the flag wins', () => {
    expect(otelIdleOf(undefined, {})).toBe(DEFAULT_QUIET_MS);
    expect(DEFAULT_QUIET_MS).toBe(120_000);
    expect(otelIdleOf(undefined, { [OTEL_IDLE_ENV]: '90s' })).toBe(90_000);
    expect(otelIdleOf('2m', { [OTEL_IDLE_ENV]: '90s' })).toBe(120_000);
  });

  it('refuses what is not a duration, and one shorter than a CLI export interval could be', () => {
    expect(() => otelIdleOf('soon', {})).toThrow(
      'the OTLP quiet period must be a duration of at least 10s such as "90s" or "10m", got "soon" (--otel-idle / HIVEWATCH_OTEL_IDLE)',
    );
    expect(() => otelIdleOf('5s', {})).toThrow('got "5s"');
    expect(otelIdleOf('10s', {})).toBe(10_000);
  });
});
