import { useState } from 'react';
import { prettyJson } from '../lib/json-text.js';
import type { CompareGroup, CompareRow } from './compare-runs.js';
import { viewGroups } from './compare-view.js';

function Cell({ row, side }: { row: CompareRow; side: 'left' | 'right' }) {
  const text = row[side];
  return (
    <td className={row.differs ? 'differs' : undefined} data-side={side}>
      {text === null ? <span className="muted">not run</span> : row.block ? <pre>{prettyJson(text).text}</pre> : text}
    </td>
  );
}

/**
 * The compared facts, a row group per task. With "differences only" the tasks the same in
 * both runs are left out; a large comparison folds them to one line each, opened on demand.
 */
export function CompareGroups({ groups, differencesOnly }: { groups: readonly CompareGroup[]; differencesOnly: boolean }) {
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const views = viewGroups(groups, { differencesOnly, opened });
  return (
    <>
      {views.map(({ group: g, rows, collapsed, summary }) => (
        <tbody key={g.key} data-group={g.key} data-collapsed={collapsed || undefined}>
          <tr>
            <th colSpan={3} scope="colgroup" title={g.hint}>
              {g.title}
              {collapsed && (
                <>
                  <span className="muted compare-same"> — same in both: {summary}</span>{' '}
                  <button type="button" className="small" onClick={() => setOpened((prev) => new Set(prev).add(g.key))} aria-label={`Show ${g.title}`}>
                    Show
                  </button>
                </>
              )}
            </th>
          </tr>
          {rows.map((r) => (
            <tr key={r.key} data-row={r.key}>
              <th className="compare-label" scope="row">
                {r.label}
              </th>
              <Cell row={r} side="left" />
              <Cell row={r} side="right" />
            </tr>
          ))}
        </tbody>
      ))}
    </>
  );
}
