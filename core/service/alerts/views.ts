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
  | 'approval-pending-longer-than'
  | 'telemetry-silent-longer-than';

/** `desktop`: a delivery of a rule without a webhook, shown by the windows and never posted. */
type AlertDeliveryStatus = 'pending' | 'sent' | 'failed' | 'given-up' | 'throttled' | 'desktop';

/** A rule as `hivewatch alerts add` and `addAlertRule` take it: `when` as `--when` writes it. */
export interface AlertRuleInput {
  when: string;
  flow?: string | undefined;
  code?: string | undefined;
  category?: string | undefined;
  /** Optional when `desktop` is true; a rule needs one channel at least. */
  webhook?: string | undefined;
  /** Show the rule's firings as a desktop notification in every Hivewatch window. */
  desktop?: boolean | undefined;
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
  /** Scheme, a credentials marker and host only: the path and query may be secrets. Null: no webhook. */
  webhook: string | null;
  desktop: boolean;
  /** Where it delivers, as lists show it: `webhook`, `desktop` or `webhook + desktop`. */
  channels: string;
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

/**
 * A firing as the windows show it, a desktop notification (desktop-feed.ts): one per delivery
 * of a rule with the desktop channel, throttled ones left out.
 */
export interface DesktopAlertView {
  /** The delivery's id: a window shows each once. */
  id: string;
  /** The firing it is about (the alert a follow-up resolves, else its own id): the notification's tag, so a follow-up replaces its alert. */
  firing: string;
  kind: 'fire' | 'resolve' | 'test';
  ruleId: string;
  title: string;
  body: string;
  /** Where a click takes the operator: the run, else the issue (its fingerprint), else nowhere. */
  runId: string | null;
  issue: string | null;
  createdAt: number;
}

/** One read of the feed: what is new, and `through`, the `after` of the next read. */
export interface DesktopAlertFeed {
  alerts: DesktopAlertView[];
  through: number;
}

/**
 * What a host tells its windows when its alert engine stored deliveries or recorded a POST: the
 * delivery log changed, and when `desktop`, the desktop feed too (desktop-feed.ts).
 */
export interface AlertDeliveryChange {
  desktop: boolean;
}
