/**
 * Scroll anchoring for a windowed list of fixed-height rows whose content changes under the
 * operator (live runs inserted above what they look at). The browser's own CSS scroll anchoring
 * does not help here: the rows are absolutely placed inside one spacer, so it has no in-flow
 * node to anchor to. Instead the list keeps its first visible row (still present after the
 * change) at the same distance from the viewport's top, and counts the rows that arrived above it.
 */
export interface AnchorInput {
  previousKeys: readonly string[];
  keys: readonly string[];
  scrollTop: number;
  viewportHeight: number;
  rowHeight: number;
}

export interface AnchorResult {
  /** Where to scroll so the anchor row stays where it was on screen. */
  scrollTop: number;
  /** Rows new to the list (not in `previousKeys`) now above the anchor: the "N new runs" count. */
  insertedAbove: number;
  /** False when no row that was on screen is still listed (another query): nothing was held. */
  anchored: boolean;
}

export function anchorScroll({ previousKeys, keys, scrollTop, viewportHeight, rowHeight }: AnchorInput): AnchorResult {
  if (rowHeight <= 0 || previousKeys.length === 0) return { scrollTop, insertedAbove: 0, anchored: false };
  const first = Math.max(0, Math.floor(scrollTop / rowHeight));
  const last = Math.min(previousKeys.length - 1, Math.floor((scrollTop + Math.max(0, viewportHeight - 1)) / rowHeight));
  const at = new Map<string, number>();
  keys.forEach((key, index) => at.set(key, index));
  for (let old = first; old <= last; old++) {
    const index = at.get(previousKeys[old] as string);
    if (index === undefined) continue;
    const offset = scrollTop - old * rowHeight;
    const known = new Set(previousKeys);
    let insertedAbove = 0;
    for (let i = 0; i < index; i++) if (!known.has(keys[i] as string)) insertedAbove++;
    return { scrollTop: Math.max(0, index * rowHeight + offset), insertedAbove, anchored: true };
  }
  // Nothing that was on screen is still listed (another query): nothing to hold on to.
  return { scrollTop, insertedAbove: 0, anchored: false };
}
