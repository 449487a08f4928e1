import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import { escalationWords, FORECAST_HOURS, forecastHour, forecastWindow, type HourCount, weekday } from './forecast.js';

/**
 * The escalating forecast against series worked out by hand (Sentry's `generate_issue_forecast`,
 * docs/triage.md "Escalating is a forecast"). `DAY` is a Friday; the week before it is the 168
 * hours from the Friday before, so exactly 24 of them share its weekday and weigh twice.
 */

const HOUR = 3_600_000;
const DAY = Date.UTC(2026, 10, 20);

/** The 168 hours before DAY, each with the count `f` gives it (its start and its index 0…167). */
const week = (f: (start: number, index: number) => number): HourCount[] =>
  Array.from({ length: FORECAST_HOURS }, (_, i) => ({ start: DAY - FORECAST_HOURS * HOUR + i * HOUR, count: f(DAY - FORECAST_HOURS * HOUR + i * HOUR, i) }));

describe('an issue forecast', () => {
  it('is a Friday the tests reason about', () => {
    expect(new Date(DAY).getUTCDay()).toBe(5);
  });

  it("weighs an hour by the weekday Date's getUTCDay gives it, before 1970 as after", async () => {
    const instant = fc.integer({ min: -8.64e15, max: 8.64e15 });
    await assertProperty(
      fc.property(instant, (ts) => weekday(ts) === new Date(ts).getUTCDay()),
      { seed: 20261202, numRuns: 2_000 },
    );
    expect([weekday(DAY), weekday(DAY - 1), weekday(0), weekday(-1)]).toEqual([5, 4, 4, 3]);
  });

  it('of a steady issue: 4 every hour gives 24, so its steady 4 never escalates and a 10× jump (40) does', () => {
    // mean 4, sd 0, cv 0: the peak multiplier 5·e^0 = 5, so 4 × 5 = 20; the spike multiplier
    // (4 + 5·0) / 4 = 1, raised to 5: 5 × 4 = 20 over the weighted mean 4, 24. The larger: 24.
    const forecast = forecastHour(
      week(() => 4),
      DAY,
    );
    expect(forecast).toEqual({ limit: 24, basis: 'steady', hours: 168, max: 4, mean: 4, stdDev: 0 });
    expect(4 > forecast.limit).toBe(false);
    expect(24 > forecast.limit).toBe(false);
    expect(40 > forecast.limit).toBe(true);
  });

  it('of a week that alternates 2 and 6: the weighted mean wins, 24', () => {
    // mean 4; 168 deviations of ±2, sample variance 168·4 / 167, sd 2.00598; cv 0.50150;
    // peak: 5·e^(−0.32597) = 3.6090, × 6 = 21.65; spike: (4 + 10.03) / 4 = 3.51, raised to 5:
    // 20, + the weighted mean 4 (the Friday's 24 hours alternate too) = 24. floor(max) = 24.
    const forecast = forecastHour(
      week((_, i) => (i % 2 === 0 ? 2 : 6)),
      DAY,
    );
    expect(forecast.limit).toBe(24);
    expect(forecast.mean).toBe(4);
    expect(forecast.stdDev).toBeCloseTo(Math.sqrt((168 * 4) / 167), 12);
  });

  it('weighs the hours of the same weekday twice: 10 on last Friday, 2 otherwise gives 27', () => {
    // 24 hours of 10 and 144 of 2: mean 528 / 168 = 3.142857; sum of squares 24·6.857143² +
    // 144·1.142857² = 1,316.57, / 167 = 7.88366, sd 2.80779, cv 0.89339; peak:
    // 5·e^(−0.58070) = 2.7977, × 10 = 27.98; spike (3.142857 + 14.03890) / 3.142857 = 5.467,
    // × mean = 17.18, + the weighted mean (24·10·2 + 144·2) / (24·2 + 144) = 768 / 192 = 4:
    // 21.18. floor(27.98) = 27.
    const forecast = forecastHour(
      week((start) => (new Date(start).getUTCDay() === 5 ? 10 : 2)),
      DAY,
    );
    expect(forecast).toMatchObject({ limit: 27, basis: 'steady', max: 10 });
    expect(forecast.mean).toBeCloseTo(528 / 168, 12);
    expect(forecast.stdDev).toBeCloseTo(2.807786, 6);
  });

  it('of a bursty issue (30 once a day, else 1): the peak multiplier floors at 2, so its daily 30 is expected and 61 is over', () => {
    // mean 371 / 168 = 2.2083, sd 5.8123, cv 2.632: 5·e^(−1.711) = 0.90, raised to 2: 30 × 2 =
    // 60; the spike multiplier 14.2 is cut to 8: 8 × 2.2083 + the weighted mean 424 / 192 =
    // 19.9. floor(max) = 60.
    const forecast = forecastHour(
      week((_, i) => (i % 24 === 13 ? 30 : 1)),
      DAY,
    );
    expect(forecast.limit).toBe(60);
    expect(30 > forecast.limit).toBe(false);
    expect(61 > forecast.limit).toBe(true);
  });

  it('of a sparse issue (seen in 3 hours of the week, the busiest with 2): 10 × 2', () => {
    const forecast = forecastHour(
      [
        { start: DAY - 5 * HOUR, count: 1 },
        { start: DAY - 30 * HOUR, count: 2 },
        { start: DAY - 50 * HOUR, count: 1 },
      ],
      DAY,
    );
    expect(forecast).toMatchObject({ limit: 20, basis: 'sparse', hours: 3, max: 2 });
    expect(escalationWords(21, forecast)).toBe("21 in the last hour, over its forecast of 20 (seen in 3 of the week's 168 hours, the busiest with 2: 10 × 2)");
  });

  it('of a week without an occurrence: 10, as Sentry forecasts for one event', () => {
    expect(forecastHour([], DAY)).toEqual({ limit: 10, basis: 'quiet', hours: 0, max: 0, mean: 0, stdDev: 0 });
    // Hours listed with 0 are hours without occurrences: the same.
    expect(
      forecastHour(
        week(() => 0),
        DAY,
      ).basis,
    ).toBe('quiet');
  });

  it('reads the 168 whole hours before the hour that holds the start of the last hour', () => {
    const now = DAY + 5 * HOUR + 10 * 60_000;
    // The last hour starts at 04:10, so the week ends at 04:00 and never overlaps it.
    expect(forecastWindow(now)).toEqual({ since: DAY + 4 * HOUR - FORECAST_HOURS * HOUR, until: DAY + 4 * HOUR, day: DAY });
  });
});
