import { randomBytes } from 'node:crypto';
import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import {
  ALERTS_CURSOR_KEY,
  claimDelivery,
  DeliveryStatus,
  enqueueDelivery,
  finishDelivery,
  getDelivery,
  getRule,
  listRules,
  unresolvedFires,
  type AlertDelivery,
  type DeliveryOutcome,
  type NewDelivery,
} from './alert-queries.js';
import { deliveryContext } from './delivery-context.js';
import { deliveryId } from './delivery-id.js';
import { followUpOf, retriedAncestors } from './follow-ups.js';
import { DeliveryDispatcher } from './delivery/dispatcher.js';
import { postWebhook, type WebhookPost } from './delivery/http-post.js';
import { outcomeOf } from './delivery/outcome.js';
import type { DeliveryLimits } from './delivery/receiver-slots.js';
import { issueOccurrence, type IssueTransition } from './issue-transitions.js';
import { occurrencesOf, ruleMatches, runFactsOf, type Occurrence } from './occurrences.js';
import type { AlertRule } from './rules.js';
import type { AlertDeliveryChange } from './views.js';
import { bodyOf } from './webhook.js';
import { approvalPendingOccurrences } from './approval-pending.js';
import { telemetrySilentPass } from './telemetry-silent.js';

/**
 * The alert engine of one host. It follows the journal from a cursor kept in
 * the database, turns events into occurrences, journals one delivery per (rule, subject,
 * occurrence) whichever host sees it first, and posts due deliveries it claims, side by side
 * within per-receiver and overall bounds (delivery/dispatcher.ts). Nothing here runs on the write
 * path: the service only nudges a pass after a commit, and a receiver that fails or hangs holds
 * only its own deliveries, each for one bounded POST, never a pass, a run or an ingest.
 */

export interface AlertEngineOptions {
  store: HivewatchStore;
  /** Names this host in delivery leases (several hosts share one database). */
  host?: string;
  now?: () => number;
  post?: WebhookPost;
  /** Per POST, from connecting to the last byte read; 5 s unless a test says otherwise. */
  timeoutMs?: number;
  /** How many POSTs are in flight at once (delivery/receiver-slots.ts DELIVERY_LIMITS unless a test says otherwise). */
  limits?: DeliveryLimits;
  /** How long a claimed delivery is this host's; longer than any POST. */
  leaseMs?: number;
  log?: (message: string) => void;
  /**
   * Called once a pass (or an `alerts test`) has stored deliveries, and each time one's POST is
   * recorded: the windows read the delivery log, and when `desktop` (a firing or follow-up of a
   * rule with the desktop channel) the desktop feed, now instead of on their next beat.
   */
  onDeliveries?: (change: AlertDeliveryChange) => void;
}

const DELIVERY_TIMEOUT_MS = 5_000;
const EVENTS_PER_READ = 500;
/** The event types `evaluateEvent` turns into occurrences or follow-ups; no other event can alert. */
const ALERTING_TYPES: ReadonlySet<HivewatchEvent['type']> = new Set(['runFailed', 'externalRunIdle', 'retryScheduled', 'runCompleted']);

/**
 * Whether a committed batch holds an event an alert can come from. A batch without one needs no
 * pass of its own (a pass after every batch would cost five statements a batch): the
 * next pass, after a batch that has one or on the timer, moves the cursor over it anyway.
 */
export function mayAlert(events: readonly HivewatchEvent[]): boolean {
  return events.some((event) => ALERTING_TYPES.has(event.type));
}

export class AlertEngine {
  private readonly store: HivewatchStore;
  private readonly host: string;
  private readonly now: () => number;
  private readonly post: WebhookPost;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly log: (message: string) => void;
  private readonly dispatcher: DeliveryDispatcher;
  private readonly onDeliveries: (change: AlertDeliveryChange) => void;
  /** What was stored since the windows were last told (null: nothing). */
  private stored: AlertDeliveryChange | null = null;
  /** Deliveries this host posted and recorded (any outcome): how a test sees two hosts share the work. */
  posted = 0;
  private cursor: number | null = null;
  private pumping: Promise<void> | null = null;
  /** The issue transitions enqueued so far, chained so each enqueues after the one before. */
  private transitions: Promise<void> = Promise.resolve();
  private again = false;
  private halted = false;

  constructor(options: AlertEngineOptions) {
    this.store = options.store;
    this.host = options.host ?? `host-${randomBytes(4).toString('hex')}`;
    this.now = options.now ?? Date.now;
    this.post = options.post ?? postWebhook;
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? Math.max(30_000, this.timeoutMs * 3);
    this.log = options.log ?? (() => undefined);
    this.onDeliveries = options.onDeliveries ?? (() => undefined);
    this.dispatcher = new DeliveryDispatcher({
      rules: () => this.rules(),
      claim: (busyRules) => this.store.runStatements((d) => claimDelivery(d, this.host, this.now(), this.leaseMs, { notRules: busyRules })),
      deliver: (delivery, rule) => this.deliver(delivery, rule),
      halted: () => this.halted,
      log: this.log,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  }

  /**
   * A pass, then waits until every delivery in flight has been posted and recorded: what a caller
   * that wants the outcome (a test, a CLI process) waits on.
   */
  async pump(): Promise<void> {
    await this.pass();
    await this.dispatcher.idle();
  }

  /** Resolves when no delivery is in flight (a host that closes waits for its POSTs, each bounded). */
  idle(): Promise<void> {
    return this.dispatcher.idle();
  }

  /**
   * Evaluates what was journaled since the last pass, then starts the due deliveries there are
   * slots for; resolves once they are started, not posted, so a hanging receiver never holds the
   * next pass. One pass at a time: a call during a pass makes that pass run once more and waits for it.
   */
  pass(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          const rules = await this.rules();
          if (rules.length > 0) {
            await this.evaluateJournal(rules);
            await this.checkRunning(rules);
            for (const occurrence of await approvalPendingOccurrences(this.store, rules, this.now())) await this.enqueueMatching(rules, occurrence);
            await this.checkTelemetrySilence(rules);
          } else {
            // Nothing to evaluate, so the journal is not read. The stored cursor stays where it
            // is and is read again once there are rules: adding the first rule moves it to the
            // journal's head (alert-queries.ts moveCursorToHeadIfNoRules).
            this.cursor = null;
          }
          this.tellStored();
          await this.dispatcher.dispatch();
        } while (this.again && !this.halted);
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  /**
   * The host is closing: the deliveries being posted finish (each one bounded POST), no other
   * starts. Without it, closing waited for every due delivery, each up to its timeout.
   */
  halt(): void {
    this.halted = true;
  }

  private noteStored(desktop: boolean): void {
    this.stored = { desktop: desktop || (this.stored?.desktop ?? false) };
  }

  /** Once per pass, however many deliveries it stored. */
  private tellStored(): void {
    const change = this.stored;
    if (change === null) return;
    this.stored = null;
    this.onDeliveries(change);
  }

  /** An issue changed state: the issues engine's hook calls this (service.ts; `hivewatch issues` for an operator's change there). */
  onIssueTransition(transition: IssueTransition): Promise<void> {
    // One at a time, in the order they happened: each reads the rules before it enqueues, and two
    // transitions in flight together could otherwise enqueue "escalating" before "new".
    const next = this.transitions.then(() => this.enqueueTransition(transition));
    this.transitions = next.catch(() => undefined);
    return next;
  }

  private async enqueueTransition(transition: IssueTransition): Promise<void> {
    const rules = await this.rules();
    if (transition.kind === 'resolved') {
      await this.followUp([transition.fingerprint], `issue ${transition.fingerprint} resolved by ${transition.by}`, transition.at);
      return;
    }
    const occurrence = issueOccurrence(transition);
    if (occurrence) await this.enqueueMatching(rules, occurrence);
  }

  /** `alerts test ID`: a test delivery of the rule, posted now; the delivery as it ended. */
  async test(ruleId: string): Promise<AlertDelivery | null> {
    const rule = await this.store.runStatements((d) => getRule(d, ruleId));
    if (!rule) return null;
    const id = deliveryId();
    const title = `Test alert of rule ${rule.id} (${rule.condition}) from Hivewatch`;
    const delivery: NewDelivery = {
      id,
      ruleId,
      subject: `test:${id}`,
      occurrence: 'test',
      throttleKey: `test:${id}`,
      kind: 'test',
      refersTo: null,
      title,
      facts: { condition: rule.condition, text: title, at: this.now() },
    };
    const stored = await this.store.runStatements((d) => enqueueDelivery(d, delivery, 0, this.now(), rule.webhook !== null));
    if (stored) this.onDeliveries({ desktop: rule.desktop });
    // Only this delivery: `alerts test` in a CLI process posts its test, not other hosts' work.
    const claimed = await this.store.runStatements((d) => claimDelivery(d, this.host, this.now(), this.leaseMs, { id }));
    if (claimed) await this.dispatcher.deliverNow(claimed, rule);
    return this.store.runStatements((d) => getDelivery(d, id));
  }

  private rules(): Promise<AlertRule[]> {
    return this.store.runStatements((d) => listRules(d));
  }

  private async startCursor(): Promise<number> {
    if (this.cursor !== null) return this.cursor;
    const stored = await this.store.getSetting(ALERTS_CURSOR_KEY);
    // A database never alerted on starts at its head: history is not news.
    this.cursor = stored !== null ? Number(stored) : await this.store.journalHead();
    if (stored === null && !this.store.readonly) await this.store.setSetting(ALERTS_CURSOR_KEY, String(this.cursor));
    return this.cursor;
  }

  private async evaluateJournal(rules: readonly AlertRule[]): Promise<void> {
    let cursor = await this.startCursor();
    for (;;) {
      const batch = await this.store.eventsAfterCommit(cursor, EVENTS_PER_READ);
      if (batch.length === 0) break;
      for (const { event } of batch) await this.evaluateEvent(rules, event);
      cursor = batch[batch.length - 1]!.commitSeq;
      this.cursor = cursor;
      await this.store.setSetting(ALERTS_CURSOR_KEY, String(cursor));
      if (batch.length < EVENTS_PER_READ) break;
    }
  }

  private async evaluateEvent(rules: readonly AlertRule[], event: HivewatchEvent): Promise<void> {
    if (event.type === 'runCompleted') {
      await this.followUpRetriedRun(event.runId, event.ts);
      return;
    }
    if (event.type !== 'runFailed' && event.type !== 'externalRunIdle' && event.type !== 'retryScheduled') return;
    const facts = await runFactsOf(this.store, event.runId);
    for (const occurrence of occurrencesOf(event, facts)) await this.enqueueMatching(rules, occurrence);
  }

  /** running-longer-than: checked on every pump against the runs running now. */
  private async checkRunning(all: readonly AlertRule[]): Promise<void> {
    const rules = all.filter((r) => r.condition === 'running-longer-than');
    if (rules.length === 0) return;
    const now = this.now();
    const page = await this.store.listRuns({ status: ['running'], limit: 500 });
    for (const run of page.runs) {
      const runningMs = now - run.startedAt;
      const title = `Run ${run.id} of ${run.flow} has been running for over ${Math.floor(runningMs / 60_000)} min`;
      await this.enqueueMatching(rules, {
        condition: 'running-longer-than',
        subject: run.id,
        occurrence: 'running-long',
        throttleKey: `flow:${run.flow}`,
        title,
        flow: run.flow,
        flowName: run.flowName,
        code: null,
        category: null,
        runningMs,
        facts: { condition: 'running-longer-than', text: title, runId: run.id, flow: run.flow, at: now },
      });
    }
  }

  /** telemetry-silent-longer-than: each silence fires once, and is resolved once its source is no longer silent. */
  private async checkTelemetrySilence(rules: readonly AlertRule[]): Promise<void> {
    const silence = await telemetrySilentPass(this.store, rules, this.now());
    for (const occurrence of silence.occurrences) await this.enqueueMatching(rules, occurrence);
    for (const { subject, why } of silence.spokeAgain) await this.followUp([subject], why, this.now());
  }

  private async enqueueMatching(rules: readonly AlertRule[], occurrence: Occurrence): Promise<void> {
    for (const rule of rules) {
      if (!ruleMatches(rule, occurrence)) continue;
      const delivery: NewDelivery = {
        id: deliveryId(),
        ruleId: rule.id,
        subject: occurrence.subject,
        occurrence: occurrence.occurrence,
        throttleKey: occurrence.throttleKey,
        kind: 'fire',
        refersTo: null,
        title: occurrence.title,
        facts: occurrence.facts,
      };
      const stored = await this.store.runStatements((d) => enqueueDelivery(d, delivery, rule.throttleMs, this.now(), rule.webhook !== null));
      if (stored) this.noteStored(rule.desktop);
    }
  }

  /** A run that completed: the runs it retried or resumed, back to the first, get their follow-up. */
  private async followUpRetriedRun(runId: string, at: number): Promise<void> {
    const ancestors = await retriedAncestors(this.store, runId);
    if (ancestors.length > 0) await this.followUp(ancestors, `run ${runId} retried it to success`, at);
  }

  private async followUp(subjects: readonly string[], why: string, at: number): Promise<void> {
    const fires = await this.store.runStatements((d) => unresolvedFires(d, subjects));
    if (fires.length === 0) return;
    const desktop = new Set((await this.rules()).filter((rule) => rule.desktop).map((rule) => rule.id));
    for (const fire of fires) {
      const { delivery, posted } = followUpOf(fire, why, at);
      const stored = await this.store.runStatements((d) => enqueueDelivery(d, delivery, 0, this.now(), posted));
      if (stored) this.noteStored(desktop.has(fire.ruleId));
    }
  }

  private async deliver(delivery: AlertDelivery, listed: AlertRule | undefined): Promise<void> {
    const rule = listed ?? (await this.store.runStatements((d) => getRule(d, delivery.ruleId)));
    if (!rule) {
      await this.finish(delivery, { status: DeliveryStatus.givenUp, responseCode: null, error: 'the rule was removed', nextAttemptAt: this.now() });
      return;
    }
    if (rule.webhook === null) {
      // The rule's webhook was never there: its deliveries are the desktop's (desktop-feed.ts).
      await this.finish(delivery, { status: DeliveryStatus.desktop, responseCode: null, error: null, nextAttemptAt: this.now() });
      return;
    }
    const context = await deliveryContext(this.store, delivery);
    const headers = { 'x-hivewatch-delivery': delivery.id, 'x-hivewatch-attempt': String(delivery.attempts) };
    const result = await this.post(rule.webhook, bodyOf(rule.format, rule, delivery, context), headers, this.timeoutMs);
    await this.finish(delivery, outcomeOf(delivery.attempts, result, this.now()));
  }

  private async finish(delivery: AlertDelivery, outcome: DeliveryOutcome): Promise<void> {
    const kept = await this.store.runStatements((d) => finishDelivery(d, delivery.id, this.host, outcome, this.now()));
    if (kept) {
      this.posted += 1;
      this.onDeliveries({ desktop: outcome.status === DeliveryStatus.desktop });
    }
    // Deliveries are logged by id and rule, never by URL (its path and query may be secrets).
    if (outcome.status !== DeliveryStatus.sent) this.log(`alert delivery ${delivery.id} (rule ${delivery.ruleId}) ${outcome.status}: ${outcome.error ?? ''}`);
    if (!kept) this.log(`alert delivery ${delivery.id}: the lease ran out before the receiver answered; another host may post it again`);
  }
}
