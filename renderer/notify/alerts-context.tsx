import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { AlertsSnapshot, FailureAlerts } from './failure-alerts.js';

const AlertsContext = createContext<FailureAlerts | null>(null);

export function AlertsProvider({ alerts, children }: { alerts: FailureAlerts; children: ReactNode }) {
  return <AlertsContext.Provider value={alerts}>{children}</AlertsContext.Provider>;
}

export function useAlerts(): FailureAlerts {
  const alerts = useContext(AlertsContext);
  if (!alerts) throw new Error('AlertsProvider is missing');
  return alerts;
}

export function useAlertsSnapshot(): AlertsSnapshot {
  const alerts = useAlerts();
  return useSyncExternalStore(alerts.subscribe, alerts.getSnapshot);
}
