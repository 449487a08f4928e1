import { isStoreError, type HivewatchStore } from '../../store/index.js';
import { startAlerts, type AlertsHost } from '../alerts/alerts-host.js';
import { AlertEngine } from '../alerts/engine.js';
import { issuesApi, type IssueParts } from './api.js';
import { IssueWatch } from './watch.js';
import type { HivewatchServiceOptions } from '../service-types.js';

/** What a service runs for triage: error issues, their watch, and the alert engine they feed. */
export interface TriageHost {
  alerts: AlertsHost | null;
  issues: IssueParts;
  issueWatch: IssueWatch;
  stop(): Promise<void>;
}

export function startTriage(store: HivewatchStore, options: HivewatchServiceOptions, instance: string): TriageHost {
  // Alerts run beside everything else: a slow receiver never holds a run or an ingest.
  const alerts = startAlerts(store, options.alerts, instance);
  // Error issues: the API, the hook, and the watch that journals their system transitions.
  const issues = issuesApi(store, { onListenerError: (error) => console.error('an issue transition listener failed:', error) });
  // A database that is away is not news here (the next pass tries again, as the host watch does).
  const issueWatch = new IssueWatch(issues.book, (error) => {
    if (!isStoreError(error) || error.kind !== 'unavailable') console.error('error issues: a check failed:', error);
  });
  if (!store.readonly) issueWatch.start(store, options.issueWatch ?? {});
  // What this process journals about issues feeds the alert rules (new issue, regression, escalation,
  // the resolve follow-up); a system transition is journaled by one host only, so it alerts once.
  // A process that does not deliver (`alerts: false`: `hivewatch run`, bulk) still queues them in the
  // database, as `hivewatch issues` does: no other host will be told of a row this one journaled.
  const engine = alerts?.engine ?? (store.readonly ? null : new AlertEngine({ store, host: `${instance}-${process.pid}` }));
  const queued = new Set<Promise<void>>();
  if (engine) {
    issues.transitions.subscribe((transition) => {
      const queuing = engine
        .onIssueTransition(transition)
        .then(() => (alerts ? alerts.engine.pass() : undefined))
        .catch((error: unknown) => console.error('alerts: an issue transition was not queued:', error))
        .finally(() => queued.delete(queuing));
      queued.add(queuing);
    });
  }
  return {
    alerts,
    issues,
    issueWatch,
    async stop(): Promise<void> {
      await issueWatch.stop();
      await Promise.all([...queued]);
      await alerts?.stop();
      issues.book.close();
    },
  };
}
