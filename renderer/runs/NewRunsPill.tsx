import { plural } from '../lib/format.js';

/**
 * "3 new runs ↑": live runs arrived above the rows the operator is looking at, which stayed put
 * (scroll anchoring, components/scroll-anchor.ts). A click scrolls back to the top, where they are.
 */
export function NewRunsPill({ count, onShow }: { count: number; onShow: () => void }) {
  // The slot is always there: a live region must exist before what it announces.
  return (
    <div className="new-runs-pill-slot" role="status">
      {count > 0 && (
        <button type="button" className="new-runs-pill" onClick={onShow} data-testid="new-runs-pill">
          {plural(count, 'new run')} <span aria-hidden="true">↑</span>
        </button>
      )}
    </div>
  );
}
