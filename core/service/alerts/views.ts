/**
 * Alert rules and deliveries as every surface shows them (the API, the CLI's --json, the
 * window): types only, so the renderer can see them through core/service/api.ts.
 */

export type AlertConditionName =
  | 'run-failed'
  | 'new-issue'
  | 'regression'
  | 'escalating'
  | 'retrying-longer-than'
  | 'retrying-more-than'
  | 'running-longer-than'
  | 'usage-limit'
  | 'session-failed'
  | 'approval-pending-longer-than';

type AlertDeliveryStatus = 'pending' | 'sent' | 'failed' | 'given-up' | 'throttled';

/** A rule as `hivewatch alerts add` and `addAlertRule` take it: `when` as `--when` writes it. */
export interface AlertRuleInput {
  when: string;
  flow?: string | undefined;
  code?: string | undefined;
  category?: string | undefined;
  webhook: string;
  format?: string | undefined;
  throttle?: string | undefined;
}

export interface AlertRuleView {
  id: string;
  condition: AlertConditionName;
  /** The condition as `--when` writes it, with its filters: "retrying-longer-than=10m (flow a.prose)". */
  description: string;
  flow: string | null;
  code: string | null;
  category: string | null;
  /** Scheme, a credentials marker and host only: the path and query may be secrets. */
  webhook: string;
  format: 'json' | 'slack';
  throttleMs: number;
  createdAt: number;
  createdBy: string;
}

export interface AlertDeliveryView {
  id: string;
  ruleId: string;
  kind: 'fire' | 'resolve' | 'test';
  title: string;
  status: AlertDeliveryStatus;
  attempts: number;
  responseCode: number | null;
  lastError: string | null;
  refersTo: string | null;
  createdAt: number;
  /** When a pending or failed delivery is tried next; null once it is done. */
  nextAttemptAt: number | null;
  sentAt: number | null;
}
