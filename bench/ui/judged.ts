/** One judged figure of the history bench: its value against its target, and what it measured. */
export interface Judged {
  name: string;
  value: number;
  unit: string;
  target: number;
  detail: string;
}

/** The q-quantile of `values`, rounded to a whole number. */
export const quantile = (values: readonly number[], q: number): number => {
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0);
};

/** "1 serve", "20 serves": how many fresh `serve`s a figure's samples came from. */
export function serves(n: number): string {
  return `${n} serve${n === 1 ? '' : 's'}`;
}
