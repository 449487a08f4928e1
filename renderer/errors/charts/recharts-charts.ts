/**
 * The charts' chunk: everything that imports recharts, loaded by load-charts.ts apart from the
 * Errors screen's own chunk.
 */
export { CountBars } from './CountBars.js';
export { SeriesBars } from './SeriesBars.js';
export { TrendBars } from './TrendBars.js';
