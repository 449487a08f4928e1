import { all, Dialect, get, run, type Query } from '../../store/queries/plan.js';
import type { AlertCondition, AlertFormat, AlertRule } from './rules.js';

/**
 * The alert tables of migration 15, as engine-neutral queries (HivewatchStore.runStatements runs
 * them statement by statement). Exactly once across hosts rests on two single statements:
 * `enqueueDelivery` inserts with ON CONFLICT DO NOTHING on (rule, subject, occurrence), so of two
 * hosts evaluating the same event one inserts and the other changes nothing; `claimDelivery`
 * leases one due row in one UPDATE (PostgreSQL: its subquery locks FOR UPDATE SKIP LOCKED, so a
 * second host skips the row instead of waiting for it; SQLite: the writer lock serialises them).
 */

/** `desktop`: a delivery of a rule without a webhook; the windows show it (desktop-feed.ts), nothing posts it. */
export const DeliveryStatus = {
  pending: 'pending',
  sent: 'sent',
  failed: 'failed',
  givenUp: 'given-up',
  throttled: 'throttled',
  desktop: 'desktop',
} as const;
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];

/** fire: the condition happened; resolve: the follow-up saying it is over; test: `alerts test`. */
type DeliveryKind = 'fire' | 'resolve' | 'test';

/** What a delivery tells, kept as JSON: the body is rendered from it when it is sent. */
export interface DeliveryFacts {
  condition: AlertCondition;
  text: string;
  runId?: string;
  flow?: string;
  taskId?: string;
  fingerprint?: string;
  code?: string;
  category?: string;
  /** approval-pending-longer-than: what the prompt asks for, and since when it waits. */
  tool?: string;
  pendingSince?: number;
  /** telemetry-silent-longer-than: the silent source (`runtime:<agent>`), when it last sent, its interval. */
  origin?: string;
  lastSeenAt?: number | null;
  expectedEveryMs?: number;
  at: number;
}

export interface AlertDelivery {
  id: string;
  ruleId: string;
  subject: string;
  occurrence: string;
  throttleKey: string;
  kind: DeliveryKind;
  refersTo: string | null;
  title: string;
  facts: DeliveryFacts;
  status: DeliveryStatus;
  attempts: number;
  responseCode: number | null;
  lastError: string | null;
  createdAt: number;
  nextAttemptAt: number;
  sentAt: number | null;
}

export type NewDelivery = Pick<AlertDelivery, 'id' | 'ruleId' | 'subject' | 'occurrence' | 'throttleKey' | 'kind' | 'refersTo' | 'title' | 'facts'>;

interface RuleRecord {
  id: string;
  condition: string;
  threshold_ms: number | null;
  threshold_count: number | null;
  flow: string | null;
  code: string | null;
  category: string | null;
  webhook: string | null;
  desktop: number;
  format: string;
  throttle_ms: number;
  created_at: number;
  created_by: string;
}

interface DeliveryRecord {
  id: string;
  rule_id: string;
  subject: string;
  occurrence: string;
  throttle_key: string;
  kind: string;
  refers_to: string | null;
  title: string;
  facts: string;
  status: string;
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  created_at: number;
  next_attempt_at: number;
  sent_at: number | null;
}

const RULE_COLUMNS = 'id, condition, threshold_ms, threshold_count, flow, code, category, webhook, desktop, format, throttle_ms, created_at, created_by';
const DELIVERY_COLUMNS =
  'id, rule_id, subject, occurrence, throttle_key, kind, refers_to, title, facts, status, attempts, response_code, last_error, created_at, next_attempt_at, sent_at';

const num = (value: number | null): number | null => (value === null ? null : Number(value));

function ruleOf(row: RuleRecord): AlertRule {
  return {
    id: row.id,
    condition: row.condition as AlertCondition,
    thresholdMs: num(row.threshold_ms),
    thresholdCount: num(row.threshold_count),
    flow: row.flow,
    code: row.code,
    category: row.category,
    webhook: row.webhook,
    desktop: Number(row.desktop) === 1,
    format: row.format as AlertFormat,
    throttleMs: Number(row.throttle_ms),
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
  };
}

function deliveryOf(row: DeliveryRecord): AlertDelivery {
  return {
    id: row.id,
    ruleId: row.rule_id,
    subject: row.subject,
    occurrence: row.occurrence,
    throttleKey: row.throttle_key,
    kind: row.kind as DeliveryKind,
    refersTo: row.refers_to,
    title: row.title,
    facts: JSON.parse(row.facts) as DeliveryFacts,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    responseCode: num(row.response_code),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    nextAttemptAt: Number(row.next_attempt_at),
    sentAt: num(row.sent_at),
  };
}

/** Where the alert engines have read the journal to (`settings`): one cursor for every host of a database. */
export const ALERTS_CURSOR_KEY = 'alerts.cursor';

/**
 * Before the first rule goes in: the cursor moves to the journal's head, so the rule is evaluated
 * against what is journaled from its creation on. With no rules the engines do not read the
 * journal and leave the cursor behind (engine.ts); without this, the first rule would fire for
 * everything journaled since the last rule was removed. One statement, so of two rules added at
 * once both see "no rules" or one sees the other; either way the cursor is at a head of that time.
 */
export function* moveCursorToHeadIfNoRules(_dialect: Dialect, now: number): Query<void> {
  yield* run(
    `INSERT INTO settings (key, value, updated_at)
       SELECT ?, CAST(commit_seq AS TEXT), ? FROM journal_head WHERE id = 1 AND NOT EXISTS (SELECT 1 FROM alert_rules)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    [ALERTS_CURSOR_KEY, now],
  );
}

export function* insertRule(_dialect: Dialect, rule: AlertRule): Query<void> {
  yield* run(`INSERT INTO alert_rules (${RULE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    rule.id,
    rule.condition,
    rule.thresholdMs,
    rule.thresholdCount,
    rule.flow,
    rule.code,
    rule.category,
    rule.webhook,
    rule.desktop ? 1 : 0,
    rule.format,
    rule.throttleMs,
    rule.createdAt,
    rule.createdBy,
  ]);
}

export function* listRules(_dialect: Dialect): Query<AlertRule[]> {
  return (yield* all<RuleRecord>(`SELECT ${RULE_COLUMNS} FROM alert_rules ORDER BY created_at, id`)).map(ruleOf);
}

export function* getRule(_dialect: Dialect, id: string): Query<AlertRule | null> {
  const row = yield* get<RuleRecord>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE id = ?`, [id]);
  return row ? ruleOf(row) : null;
}

/** Removes a rule; its deliveries stay in the log (pending ones are given up). False when there was none. */
export function* removeRule(_dialect: Dialect, id: string, now: number): Query<boolean> {
  const removed = yield* run('DELETE FROM alert_rules WHERE id = ?', [id]);
  if (removed.changes === 0) return false;
  yield* run(
    `UPDATE alert_deliveries SET status = 'given-up', last_error = 'the rule was removed', next_attempt_at = ? WHERE rule_id = ? AND status IN ('pending', 'failed')`,
    [now, id],
  );
  return true;
}

/**
 * Journals "this occurrence fires rule R" once: true when this call inserted it. Throttled (no
 * post, counted into the next message) when the rule already has a delivery for the same
 * throttle key created within its interval; a resolve follow-up or a test is never throttled.
 * `posted` false (a rule without a webhook): stored as `desktop`, which no claim takes.
 */
export function* enqueueDelivery(_dialect: Dialect, delivery: NewDelivery, throttleMs: number, now: number, posted = true): Query<boolean> {
  const throttled =
    delivery.kind === 'fire' && throttleMs > 0
      ? yield* get<{ id: string }>(
          `SELECT id FROM alert_deliveries WHERE rule_id = ? AND throttle_key = ? AND kind = 'fire' AND status <> 'throttled' AND created_at > ? LIMIT 1`,
          [delivery.ruleId, delivery.throttleKey, now - throttleMs],
        )
      : undefined;
  const status = throttled ? DeliveryStatus.throttled : posted ? DeliveryStatus.pending : DeliveryStatus.desktop;
  const inserted = yield* run(
    `INSERT INTO alert_deliveries (id, rule_id, subject, occurrence, throttle_key, kind, refers_to, title, facts, status, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rule_id, subject, occurrence) DO NOTHING`,
    [
      delivery.id,
      delivery.ruleId,
      delivery.subject,
      delivery.occurrence,
      delivery.throttleKey,
      delivery.kind,
      delivery.refersTo,
      delivery.title,
      JSON.stringify(delivery.facts),
      status,
      now,
      now,
    ],
  );
  return inserted.changes === 1;
}

/** Which due delivery a claim may take: only the one `id` names, or any whose rule is not one of `notRules` (rules whose receiver is busy on this host). */
interface ClaimScope {
  id?: string;
  notRules?: readonly string[];
}

/** Leases the next due delivery in `scope` to `owner` until `now + leaseMs`; null when none is due. One statement. */
export function* claimDelivery(dialect: Dialect, owner: string, now: number, leaseMs: number, scope: ClaimScope = {}): Query<AlertDelivery | null> {
  // A follow-up waits for the delivery it refers to: a receiver never reads "resolved" before the alert.
  const firstDone = `NOT EXISTS (SELECT 1 FROM alert_deliveries AS f WHERE f.id = alert_deliveries.refers_to AND f.status IN ('pending', 'failed'))`;
  let due = `status IN ('pending', 'failed') AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) AND ${firstDone}`;
  const dueParams: unknown[] = [now, now];
  if (scope.id !== undefined) {
    due += ' AND id = ?';
    dueParams.push(scope.id);
  }
  if (scope.notRules !== undefined && scope.notRules.length > 0) {
    due += ` AND rule_id NOT IN (${scope.notRules.map(() => '?').join(', ')})`;
    dueParams.push(...scope.notRules);
  }
  const lock = dialect === Dialect.postgres ? ' FOR UPDATE SKIP LOCKED' : '';
  const row = yield* get<DeliveryRecord>(
    `UPDATE alert_deliveries SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
      WHERE id = (SELECT id FROM alert_deliveries WHERE ${due} ORDER BY next_attempt_at, created_at, id LIMIT 1${lock}) AND ${due}
      RETURNING ${DELIVERY_COLUMNS}`,
    [owner, now + leaseMs, ...dueParams, ...dueParams],
  );
  return row ? deliveryOf(row) : null;
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  responseCode: number | null;
  error: string | null;
  /** When a failed delivery is tried again (ignored for sent and given-up). */
  nextAttemptAt: number;
}

/** Records a post's outcome and ends the lease; false when the lease was lost to another host meanwhile. */
export function* finishDelivery(_dialect: Dialect, id: string, owner: string, outcome: DeliveryOutcome, now: number): Query<boolean> {
  const result = yield* run(
    `UPDATE alert_deliveries SET status = ?, response_code = ?, last_error = ?, next_attempt_at = ?, sent_at = ?, lease_owner = NULL, lease_until = NULL
      WHERE id = ? AND lease_owner = ?`,
    [outcome.status, outcome.responseCode, outcome.error, outcome.nextAttemptAt, outcome.status === DeliveryStatus.sent ? now : null, id, owner],
  );
  return result.changes === 1;
}

/**
 * Deliveries counted instead of sent for this rule and key from the previous message (`since`,
 * its created_at, inclusive) to this one (`until`, exclusive). A throttled row in the same
 * millisecond as a message came after it (the message was not throttled, so nothing sent in its
 * interval preceded it): it belongs to the period the message opened, not the one it ends. A
 * storm evaluated in one pass shares one millisecond, so `> since` lost the whole count.
 */
export function* throttledSince(
  _dialect: Dialect,
  ruleId: string,
  throttleKey: string,
  since: number,
  until: number,
): Query<{ count: number; first: number | null }> {
  const row = yield* get<{ count: number; first: number | null }>(
    `SELECT COUNT(*) AS count, MIN(created_at) AS first FROM alert_deliveries WHERE rule_id = ? AND throttle_key = ? AND status = 'throttled' AND created_at >= ? AND created_at < ?`,
    [ruleId, throttleKey, since, until],
  );
  return { count: Number(row?.count ?? 0), first: num(row?.first ?? null) };
}

/** The previous delivery that was not throttled for this rule and key, before `before`. */
export function* previousUnthrottled(_dialect: Dialect, ruleId: string, throttleKey: string, before: number, id: string): Query<number | null> {
  const row = yield* get<{ created_at: number }>(
    `SELECT created_at FROM alert_deliveries WHERE rule_id = ? AND throttle_key = ? AND kind = 'fire' AND status <> 'throttled' AND id <> ? AND created_at <= ? ORDER BY created_at DESC LIMIT 1`,
    [ruleId, throttleKey, id, before],
  );
  return row ? Number(row.created_at) : null;
}

/** The fire deliveries for these subjects that have no resolve follow-up yet (what a resolution refers to). */
export function* unresolvedFires(_dialect: Dialect, subjects: readonly string[]): Query<AlertDelivery[]> {
  if (subjects.length === 0) return [];
  const marks = subjects.map(() => '?').join(', ');
  const rows = yield* all<DeliveryRecord>(
    `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries AS d WHERE kind = 'fire' AND status <> 'throttled' AND subject IN (${marks})
       AND NOT EXISTS (SELECT 1 FROM alert_deliveries AS r WHERE r.kind = 'resolve' AND r.refers_to = d.id) ORDER BY created_at, id`,
    subjects,
  );
  return rows.map(deliveryOf);
}

/** The deliveries about one subject (an issue's fingerprint, a run), newest first, tests left out. */
export function* deliveriesAbout(_dialect: Dialect, subject: string, limit = 50): Query<AlertDelivery[]> {
  const n = Math.max(1, Math.min(1_000, Math.trunc(limit)));
  const rows = yield* all<DeliveryRecord>(
    `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE subject = ? AND kind <> 'test' ORDER BY created_at DESC, id DESC LIMIT ${n}`,
    [subject],
  );
  return rows.map(deliveryOf);
}

export function* listDeliveries(_dialect: Dialect, limit = 100): Query<AlertDelivery[]> {
  const n = Math.max(1, Math.min(1_000, Math.trunc(limit)));
  return (yield* all<DeliveryRecord>(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries ORDER BY created_at DESC, id DESC LIMIT ${n}`)).map(deliveryOf);
}

export function* getDelivery(_dialect: Dialect, id: string): Query<AlertDelivery | null> {
  const row = yield* get<DeliveryRecord>(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE id = ?`, [id]);
  return row ? deliveryOf(row) : null;
}

/**
 * The newest `limit` deliveries of these rules created after `after`, newest first, throttled
 * ones left out: what the windows show as desktop notifications (desktop-feed.ts). Served by the
 * created_at index.
 */
export function* deliveriesOfRulesAfter(_dialect: Dialect, ruleIds: readonly string[], after: number, limit: number): Query<AlertDelivery[]> {
  if (ruleIds.length === 0) return [];
  const marks = ruleIds.map(() => '?').join(', ');
  const rows = yield* all<DeliveryRecord>(
    `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE created_at > ? AND rule_id IN (${marks}) AND status <> 'throttled'
      ORDER BY created_at DESC, id DESC LIMIT ${Math.max(1, Math.min(1_000, Math.trunc(limit)))}`,
    [after, ...ruleIds],
  );
  return rows.map(deliveryOf);
}
