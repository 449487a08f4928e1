/**
 * Run ids that can be told apart at a glance. Ids of one kind share their front (`run_`, a
 * bulk import's `run_bulk000…`, `ext-claude-code-`), so a cut that keeps the front makes a page
 * of ids that all look alike. What tells them apart is their tail: a list shows each id as "…"
 * and the shortest tail that no other id of the list ends with (never under ID_TAIL_MIN
 * characters, one length for the whole list so the column reads evenly); the full id is the
 * tooltip and what a copy takes.
 */

/** Never fewer: four hex digits collide within a few hundred random ids. */
export const ID_TAIL_MIN = 6;
/** Where no list is at hand (a page title, a dialog): 8 hex digits of a random id. */
const LONE_TAIL = 8;

/** The shortest tail length (≥ min) at which no two of these ids end alike. */
export function distinctTailLength(ids: readonly string[], min = ID_TAIL_MIN): number {
  const unique = [...new Set(ids)];
  const longest = unique.reduce((n, id) => Math.max(n, id.length), 0);
  for (let length = min; length < longest; length += 1) {
    const tails = new Set(unique.map((id) => id.slice(-length)));
    if (tails.size === unique.length) return length;
  }
  return Math.max(min, longest);
}

/** "…000999": the id's last `length` characters; a short id whole. */
export function idTail(id: string, length: number = LONE_TAIL): string {
  return id.length <= length + 1 ? id : `…${id.slice(-length)}`;
}

/**
 * A copy made of a selection that lies inside `element` takes the full id, not the "…" form
 * shown: the handler of a cell that shows an id's tail. A selection reaching beyond the cell (rows
 * of a table) is copied as the browser would.
 */
export function copyFullId(event: { clipboardData: DataTransfer | null; currentTarget: Element; preventDefault(): void }, id: string): void {
  const selection = globalThis.getSelection?.() ?? null;
  const inside = (node: Node | null): boolean => node !== null && event.currentTarget.contains(node);
  if (!event.clipboardData || !selection || !inside(selection.anchorNode) || !inside(selection.focusNode)) return;
  event.clipboardData.setData('text/plain', id);
  event.preventDefault();
}
