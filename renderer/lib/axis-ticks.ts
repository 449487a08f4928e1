/**
 * Ticks of a count axis (errors per bar, per category): whole numbers from 0 upward in one
 * "nice" step (1, 2, 2.5 or 5 times a power of ten), the last one at or above the largest value.
 * Recharts' own tick choice from a domain it guesses (`auto`) could start above zero or read
 * out of order on a stacked chart at 30 days (4000, 5500, 7000, 8500, 0); the charts
 * hand it these instead, with the domain `[0, last tick]`.
 */
export function countTicks(max: number, target = 5): number[] {
  const top = Number.isFinite(max) && max > 0 ? Math.ceil(max) : 0;
  if (top === 0) return [0, 1];
  const step = niceStep(top / Math.max(1, target - 1));
  const ticks: number[] = [];
  for (let value = 0; ; value += step) {
    ticks.push(value);
    if (value >= top) return ticks;
  }
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `raw`, whole (2.5 only from 25 up: counts are whole). */
function niceStep(raw: number): number {
  if (raw <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of power >= 10 ? [1, 2, 2.5, 5, 10] : [1, 2, 5, 10]) {
    if (factor * power >= raw) return factor * power;
  }
  return 10 * power;
}

/** The largest stack of a stacked chart: per point, the sum of its keys' counts. */
export function largestStack(points: readonly { counts: Readonly<Record<string, number>> }[]): number {
  let largest = 0;
  for (const point of points) {
    let sum = 0;
    for (const count of Object.values(point.counts)) sum += count;
    if (sum > largest) largest = sum;
  }
  return largest;
}
