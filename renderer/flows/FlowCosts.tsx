import { useState } from 'react';
import type { FlowInfo, UsageTotalsView } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { costLine, tokenLine } from '../lib/cost-format.js';
import { useAsync } from '../lib/use-async.js';

/**
 * What each flow's agent attempts cost over a range (issue 22): from the server's per-flow,
 * per-day totals (usage_days), failed attempts' share included. Flows whose attempts reported
 * no usage are not listed.
 */

const RANGES = [
  { key: '24h', label: '24 h', ms: 86_400_000 },
  { key: '7d', label: '7 d', ms: 7 * 86_400_000 },
  { key: '30d', label: '30 d', ms: 30 * 86_400_000 },
  { key: 'all', label: 'all', ms: null },
] as const;
type RangeKey = (typeof RANGES)[number]['key'];

function sumTotals(rows: readonly UsageTotalsView[]): UsageTotalsView {
  const sum: UsageTotalsView = { attempts: 0, failedAttempts: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, failedCostUsd: 0, unknownCostAttempts: 0 };
  for (const row of rows) for (const key of Object.keys(sum) as (keyof UsageTotalsView)[]) sum[key] += row[key];
  return sum;
}

export function FlowCosts({ flows }: { flows: readonly FlowInfo[] }) {
  const api = useApi();
  const [range, setRange] = useState<RangeKey>('7d');
  const { state } = useAsync(() => {
    const ms = RANGES.find((r) => r.key === range)?.ms ?? null;
    return api.usageByFlow(ms === null ? {} : { since: Date.now() - ms });
  }, [api, range]);
  const names = new Map(flows.map((f) => [f.id, f.name]));
  const rows = state.data ?? [];
  const totals = sumTotals(rows);
  return (
    <section className="flow-costs" aria-labelledby="flow-costs-title" data-testid="flow-costs">
      <div className="flow-costs-head">
        <h2 id="flow-costs-title">What flows cost</h2>
        <div className="segmented" role="group" aria-label="Cost range">
          {RANGES.map((r) => (
            <button key={r.key} type="button" aria-pressed={range === r.key} className={range === r.key ? 'on' : ''} onClick={() => setRange(r.key)}>
              {r.label}
            </button>
          ))}
        </div>
      </div>
      {state.status === 'error' && <p className="error-text small-print">Could not load the costs: {state.error}</p>}
      {state.status !== 'error' && rows.length === 0 && (
        <p className="muted small-print">{state.status === 'loading' ? 'Loading…' : 'No attempt in this range reported tokens or cost.'}</p>
      )}
      {rows.length > 0 && (
        <table className="flow-costs-table">
          <caption className="small-print muted">
            All flows: {costLine(totals)} · {tokenLine(totals)}
          </caption>
          <thead>
            <tr>
              <th scope="col">Flow</th>
              <th scope="col" className="num">
                Attempts
              </th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.flow} data-flow={r.flow}>
                <th scope="row" title={r.flow}>
                  {names.get(r.flow) ?? r.flow}
                </th>
                <td className="num">{r.attempts}</td>
                <td>{tokenLine(r)}</td>
                <td>{costLine(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
