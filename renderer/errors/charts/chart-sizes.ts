/**
 * The charts' fixed sizes, apart from the recharts chunk: a chart's box has its final height
 * from the first paint (an empty box while recharts loads), so nothing below it moves when it draws.
 */

/** Count charts: one row per key, each a band of ROW px holding a BAR px bar. */
export const COUNT_ROW = 28;
export const COUNT_BAR = 18;
export const COUNT_TOP = 4;
/** Room under the rows for the count axis' labels. */
export const COUNT_AXIS_ROOM = 24;

export function countChartHeight(rows: number): number {
  return COUNT_TOP + rows * COUNT_ROW + COUNT_AXIS_ROOM;
}

/** The series chart: a plot of fixed height under a small top margin, time labels under it. */
export const SERIES_PLOT_TOP = 8;
const SERIES_PLOT_HEIGHT = 200;
export const SERIES_LABEL_ROOM = 24;
export const SERIES_HEIGHT = SERIES_PLOT_TOP + SERIES_PLOT_HEIGHT + SERIES_LABEL_ROOM;

/** An issue's trend (its page): a shorter plot, room above the bars for their values. */
export const TREND_PLOT_TOP = 16;
const TREND_PLOT_HEIGHT = 120;
export const TREND_LABEL_ROOM = 24;
export const TREND_HEIGHT = TREND_PLOT_TOP + TREND_PLOT_HEIGHT + TREND_LABEL_ROOM;
