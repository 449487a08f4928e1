/** Small timing helpers for benchmarks: ratios against baselines measured in the same process. */

export interface Measurement {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
  /** Whether the target was met; set exactly when there is a target. A `false` fails `npm run bench`. */
  pass?: boolean;
  note?: string;
}

/** The figures that missed their target: any one makes `npm run bench` exit 1. */
export function missedTargets(measurements: readonly Measurement[]): Measurement[] {
  return measurements.filter((m) => m.pass === false);
}

export async function timeIt(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function report(measurements: readonly Measurement[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ measurements }, null, 2)}\n`);
    return;
  }
  for (const m of measurements) {
    const ratio = m.ratio === undefined ? '' : `  ratio ${m.ratio.toFixed(3)}`;
    const verdict = m.pass === undefined ? '' : m.pass ? '  ✓' : '  ✗';
    process.stdout.write(
      `${m.name.padEnd(58)} ${m.value.toFixed(3).padStart(12)} ${m.unit.padEnd(8)}${ratio}${m.target ? `  (target ${m.target})` : ''}${verdict}\n`,
    );
    if (m.note) process.stdout.write(`    ${m.note}\n`);
  }
  const missed = missedTargets(measurements);
  const judged = measurements.filter((m) => m.pass !== undefined).length;
  process.stdout.write(
    missed.length === 0 ? `${judged} targets met\n` : `${missed.length} of ${judged} targets MISSED: ${missed.map((m) => m.name).join('; ')}\n`,
  );
}
