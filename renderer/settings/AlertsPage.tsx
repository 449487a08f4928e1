import { useCallback, useEffect, useState } from 'react';
import type { AlertRuleView } from '../../core/service/api.js';
import { useApi, useRunsStore } from '../app/api-context.js';
import { useConfirm } from '../app/confirm.js';
import { useToast } from '../app/toasts.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { failedRead, StaleNote } from '../components/StaleNote.js';
import { formatAbsolute } from '../lib/format.js';
import { errorText, useAsync } from '../lib/use-async.js';
import { usePacedReloads, useReadInFlight, type PacedReloads } from '../lib/use-paced-reloads.js';
import { AlertRuleForm } from './AlertRuleForm.js';
import { DeliveryLog } from './DeliveryLog.js';
import '../styles/alerts.css';

/**
 * How many times the host said its deliveries changed (a firing stored, a POST recorded), paced
 * (lib/refresh-pacer.ts): the delivery log reads again on each, so a firing and its outcome show
 * within a second without the Refresh button.
 */
function useDeliveriesTold(): PacedReloads {
  const runs = useRunsStore();
  const [changes, setChanges] = useState(0);
  useEffect(() => runs.onAlertDeliveries(() => setChanges((n) => n + 1)), [runs]);
  return usePacedReloads(changes);
}

/**
 * Settings › Alerts (`#/settings/alerts`): the database's alert rules (shared by
 * every host of a PostgreSQL one), a form to add one, remove and "send test" per rule, and the
 * delivery log with each delivery's status and the receiver's response code, read again as this
 * host's deliveries change. Webhooks are shown as the API gives them: scheme and host only.
 */
export function AlertsPage() {
  const api = useApi();
  const rules = useAsync(() => api.listAlertRules(), [api]);
  const told = useDeliveriesTold();
  const deliveries = useAsync(() => api.listAlertDeliveries({ limit: 100 }), [api, told.count]);
  useReadInFlight(told, deliveries.state.status === 'loading');
  const reloadAll = useCallback(() => {
    rules.reload();
    deliveries.reload();
  }, [rules, deliveries]);

  return (
    <div className="alerts-page">
      <nav aria-label="Breadcrumb" className="alerts-crumbs">
        <span>Settings</span> <span aria-hidden="true">›</span> <span aria-current="page">Alerts</span>
      </nav>
      <h1>Alerts</h1>
      <p className="muted alerts-intro">Rules are kept in the database: every host of a shared database sees them, and each alert is delivered once.</p>
      <StaleNote failed={failedRead(rules.state) ?? failedRead(deliveries.state)} />
      <section aria-labelledby="alert-rules-title" className="alerts-section">
        <h2 id="alert-rules-title">Rules</h2>
        {rules.state.status === 'error' && rules.state.data === undefined && (
          <ErrorState title="Could not load the alert rules" error={rules.state.error} onRetry={rules.reload} />
        )}
        {rules.state.data === undefined && rules.state.status === 'loading' && <Loading what="alert rules" />}
        {rules.state.data !== undefined && <RulesTable rules={rules.state.data} onChanged={reloadAll} />}
      </section>
      <section aria-labelledby="alert-add-title" className="alerts-section">
        <h2 id="alert-add-title">Add a rule</h2>
        <AlertRuleForm onAdded={reloadAll} />
      </section>
      <section aria-labelledby="alert-log-title" className="alerts-section">
        <h2 id="alert-log-title">Delivery log</h2>
        {deliveries.state.status === 'error' && deliveries.state.data === undefined && (
          <ErrorState title="Could not load the delivery log" error={deliveries.state.error} onRetry={deliveries.reload} />
        )}
        {deliveries.state.data === undefined && deliveries.state.status === 'loading' && <Loading what="the delivery log" />}
        {deliveries.state.data !== undefined && <DeliveryLog deliveries={deliveries.state.data} onRefresh={deliveries.reload} />}
      </section>
    </div>
  );
}

function throttleText(ms: number): string {
  if (ms === 0) return 'none';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1_000)} s`;
}

function RulesTable({ rules, onChanged }: { rules: AlertRuleView[]; onChanged: () => void }) {
  const api = useApi();
  const confirm = useConfirm();
  const toast = useToast();
  if (rules.length === 0)
    return <EmptyState title="No alert rules yet">Add one below: a webhook, the desktop or both get a message when its condition happens.</EmptyState>;

  const remove = async (rule: AlertRuleView): Promise<void> => {
    const ok = await confirm({
      title: `Remove rule ${rule.id}?`,
      body: <p>No more alerts for “{rule.description}”. Its deliveries stay in the log; any still waiting for a retry are given up.</p>,
      confirmLabel: 'Remove',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.removeAlertRule({ id: rule.id });
      toast(`Removed alert rule ${rule.id}`, 'info');
    } catch (error) {
      toast(`Could not remove ${rule.id}: ${errorText(error)}`, 'error');
    }
    onChanged();
  };

  const test = async (rule: AlertRuleView): Promise<void> => {
    try {
      const delivery = await api.testAlertRule({ id: rule.id });
      const code = delivery.responseCode === null ? '' : ` (HTTP ${delivery.responseCode})`;
      toast(
        `Test of ${rule.id}: ${delivery.status}${code}${delivery.lastError ? ` — ${delivery.lastError}` : ''}`,
        delivery.status === 'sent' ? 'success' : 'error',
      );
    } catch (error) {
      toast(`Could not test ${rule.id}: ${errorText(error)}`, 'error');
    }
    onChanged();
  };

  return (
    <div className="alerts-table-wrap">
      <table className="alerts-table" data-testid="alert-rules">
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">When</th>
            <th scope="col">Delivers to</th>
            <th scope="col">Format</th>
            <th scope="col">Throttle</th>
            <th scope="col">Added</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.id}>
              <td className="mono">{rule.id}</td>
              <td className="alerts-when">{rule.description}</td>
              <td>
                {rule.webhook !== null && <span className="mono">{rule.webhook}</span>}
                {rule.webhook !== null && rule.desktop && ' + '}
                {rule.desktop && 'Desktop'}
              </td>
              <td>{rule.webhook === null ? <span className="muted">—</span> : rule.format === 'slack' ? 'Slack' : 'JSON'}</td>
              <td>{throttleText(rule.throttleMs)}</td>
              <td>
                {formatAbsolute(rule.createdAt)} <span className="muted">by {rule.createdBy}</span>
              </td>
              <td className="alerts-actions">
                <div>
                  <button type="button" className="small" onClick={() => void test(rule)} aria-label={`Send test for rule ${rule.id}`}>
                    Send test
                  </button>
                  <button type="button" className="small danger-outline" onClick={() => void remove(rule)} aria-label={`Remove rule ${rule.id}`}>
                    Remove
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
