import { useDeferredValue } from 'react';

/**
 * How many rows of a long list a screen draws in its first frame: more than a tall window shows
 * above a list's top edge, so a list that is on screen when it mounts is whole where anyone can
 * see it.
 */
export const FIRST_ROWS = 15;

/**
 * A long list's rows in two stages. Its first render draws only the first `first` rows; React
 * then draws the rest in a background render it may interrupt, so the numbers and rows above the
 * fold paint without waiting for the hundreds of rows below it. On the Errors screen at 1M
 * errors, the issues table and the occurrences were 2,000 of its 2,800 elements, every one of
 * them below the fold at 1440 × 900 (docs/benches.md). Later changes of `rows` are deferred the
 * same way: the rows on screen stay until their successors are drawn.
 */
export function useRowsInStages<T>(rows: readonly T[], first = FIRST_ROWS): readonly T[] {
  return useDeferredValue(rows, rows.length > first ? rows.slice(0, first) : rows);
}
