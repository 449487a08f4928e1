import type { HivewatchStore } from '../../store/contract.js';
import { deliveriesOfRulesAfter, listRules, type AlertDelivery } from './alert-queries.js';
import type { AlertCondition } from './rules.js';
import type { DesktopAlertFeed, DesktopAlertView } from './views.js';

/**
 * The desktop channel: what every Hivewatch window shows as a desktop notification. The alert
 * engine journals a delivery per firing exactly once across hosts (alert-queries.ts); a rule with
 * the desktop channel does nothing more there. Each notifier (Electron's main process, a browser
 * window) reads this feed on a timer and shows each delivery once, so every host and window that
 * shows notifications shows every firing, whichever host's engine journaled it (docs/triage.md,
 * "Desktop notifications").
 *
 * A read names `after`, the `through` of the read before. It returns the deliveries created since
 * `after` less an overlap, so one created by a host whose clock lags, or committed just after the
 * read, is not missed; the reader drops the ids it has shown (core/common/desktop-alerts.ts). The
 * first read names none and is read as if `after` were now: the reader takes its answer as already
 * shown, since what fired before it started is not news. At most the newest PER_READ a read: a storm
 * beyond that is not worth a wall of notifications (the rules' throttle usually stops it first).
 */

/** How far back each read looks past `after`: hosts' clocks and commit delays within a minute. */
export const DESKTOP_FEED_OVERLAP_MS = 60_000;
const PER_READ = 50;
const BODY_MAX = 200;

const WORDS: Record<AlertCondition, string> = {
  'run-failed': 'run failed',
  'new-issue': 'new issue',
  regression: 'regression',
  escalating: 'escalating issue',
  'retrying-longer-than': 'retrying too long',
  'retrying-more-than': 'retrying too often',
  'running-longer-than': 'running too long',
  'usage-limit': 'usage limit',
  'session-failed': 'agent session failed',
  'approval-pending-longer-than': 'approval pending too long',
  'telemetry-silent-longer-than': 'telemetry silent',
};

const LEADS: Record<AlertDelivery['kind'], string> = { fire: 'Alert', resolve: 'Resolved', test: 'Test alert' };

function desktopAlertOf(delivery: AlertDelivery): DesktopAlertView {
  return {
    id: delivery.id,
    firing: delivery.kind === 'resolve' && delivery.refersTo !== null ? delivery.refersTo : delivery.id,
    kind: delivery.kind,
    ruleId: delivery.ruleId,
    title: `${LEADS[delivery.kind]}: ${WORDS[delivery.facts.condition] ?? delivery.facts.condition}`,
    body: delivery.title.length > BODY_MAX ? `${delivery.title.slice(0, BODY_MAX - 1)}…` : delivery.title,
    runId: delivery.facts.runId ?? null,
    issue: delivery.facts.fingerprint ?? null,
    createdAt: delivery.createdAt,
  };
}

export async function desktopAlertFeed(store: HivewatchStore, after: number | undefined, now: number): Promise<DesktopAlertFeed> {
  const rules = await store.runStatements((d) => listRules(d));
  const desktop = rules.filter((rule) => rule.desktop).map((rule) => rule.id);
  const newestFirst = await store.runStatements((d) => deliveriesOfRulesAfter(d, desktop, (after ?? now) - DESKTOP_FEED_OVERLAP_MS, PER_READ));
  return { alerts: newestFirst.reverse().map(desktopAlertOf), through: now };
}
