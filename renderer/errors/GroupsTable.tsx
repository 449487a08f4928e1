import type { ErrorGroup } from '../../core/service/api.js';
import { RelativeTime } from '../components/Time.js';
import { colorFor } from '../lib/theme.js';
import { Sparkline } from './Sparkline.js';

/** Errors that differ only in volatile details (ids, numbers, paths) are one group. */
export function GroupsTable({
  groups,
  selected,
  sparklines,
  onSelect,
}: {
  groups: readonly ErrorGroup[];
  selected: string;
  sparklines: ReadonlyMap<string, number[]>;
  onSelect: (fingerprint: string) => void;
}) {
  return (
    <div className="groups-table-wrap">
      <table className="groups-table" tabIndex={-1} data-skip-target>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Error</th>
            <th scope="col" className="num">
              Count
            </th>
            <th scope="col" className="num" title="of them, the occurrences that are links of a failed run’s ending-error chain (what the run failed because of)">
              Unhandled
            </th>
            <th scope="col" title="over all time, whatever the window">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col">Trend</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => {
            const on = g.fingerprint === selected;
            return (
              <tr
                key={g.fingerprint}
                className={on ? 'selected' : ''}
                aria-selected={on}
                data-fingerprint={g.fingerprint}
                onClick={() => onSelect(g.fingerprint)}
              >
                <td className="mono">
                  <button type="button" className="link" aria-pressed={on} title={`fingerprint ${g.fingerprint}: show its occurrences`}>
                    {g.fingerprint.slice(0, 8)}
                  </button>
                </td>
                <td className="group-error">
                  <div>
                    <span className="cat-dot" style={{ background: colorFor(g.category) }} aria-hidden="true" />
                    <code>{g.code}</code> <span className="muted">· {g.origin}</span>
                  </div>
                  <div className="group-message" title={g.message}>
                    {g.template ?? g.message}
                  </div>
                </td>
                <td className="num strong">{g.count.toLocaleString('en-US')}</td>
                <td className={`num${g.unhandled > 0 ? ' error-text' : ' muted'}`} data-testid="group-unhandled">
                  {g.unhandled.toLocaleString('en-US')}
                </td>
                <td>
                  <RelativeTime ts={g.firstSeen} />
                </td>
                <td>
                  <RelativeTime ts={g.lastSeen} />
                </td>
                <td>
                  <Sparkline values={sparklines.get(g.fingerprint) ?? null} label={`occurrences of ${g.code} over the window`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
