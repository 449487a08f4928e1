/** SQL fragments the migrations created and the queries read, on both engines. */

/** The run list's status order (active first), shared by the sort and its index. */
export const STATUS_RANK_SQL =
  "(CASE status WHEN 'running' THEN 0 WHEN 'cancelling' THEN 1 WHEN 'queued' THEN 2 WHEN 'failed' THEN 3 " +
  "WHEN 'interrupted' THEN 4 WHEN 'cancelled' THEN 5 ELSE 6 END)";

/** The smallest text the trigram index can answer (shorter needles scan with LIKE). */
export const TEXT_INDEX_MIN_CHARS = 3;
