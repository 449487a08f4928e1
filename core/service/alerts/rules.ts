/**
 * Alert rules: what an operator asks to be told about, and where. A rule is
 * checked here once, the same way for the CLI, the API and the window, with the exact messages
 * the tests assert (docs/triage.md, "Alerts").
 */

import { ERROR_CATEGORIES, isErrorCode } from '../../base/errors/taxonomy.js';
import type { AlertConditionName, AlertRuleInput } from './views.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';

const ALERT_CONDITIONS = [
  'run-failed',
  'new-issue',
  'regression',
  'escalating',
  'retrying-longer-than',
  'retrying-more-than',
  'running-longer-than',
  'usage-limit',
  'session-failed',
  'approval-pending-longer-than',
  'telemetry-silent-longer-than',
] as const satisfies readonly AlertConditionName[];
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];

/** Conditions that take a value after `=`: a duration, or a number of attempts. */
const DURATION_CONDITIONS: readonly AlertCondition[] = [
  'retrying-longer-than',
  'running-longer-than',
  'approval-pending-longer-than',
  'telemetry-silent-longer-than',
];
const COUNT_CONDITIONS: readonly AlertCondition[] = ['retrying-more-than'];
/** Conditions fired by an issue's transition: no flow or category of their own. */
const ISSUE_CONDITIONS: readonly AlertCondition[] = ['new-issue', 'regression', 'escalating'];

const ALERT_FORMATS = ['json', 'slack'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

/** One alert per rule and subject (a flow, an issue) per this interval unless the rule says otherwise. */
const DEFAULT_THROTTLE_MS = 10 * 60_000;

export interface AlertRule {
  id: string;
  condition: AlertCondition;
  /** retrying-longer-than / running-longer-than / approval-pending-longer-than / telemetry-silent-longer-than: the duration. */
  thresholdMs: number | null;
  /** retrying-more-than: the number of attempts. */
  thresholdCount: number | null;
  flow: string | null;
  code: string | null;
  category: string | null;
  /** The full URL, secrets and all: never printed; `redactWebhook` is what anyone sees. Null: no webhook (desktop only). */
  webhook: string | null;
  /** Whether every Hivewatch window shows the rule's firings as a desktop notification (desktop-feed.ts). */
  desktop: boolean;
  format: AlertFormat;
  throttleMs: number;
  createdAt: number;
  /** Who added it: `cli`, `window`, `api`. */
  createdBy: string;
}

export type { AlertRuleInput };

/** A rule the operator wrote wrongly: the message says what to write instead. */
export class AlertInputError extends HivewatchError {
  constructor(message: string) {
    super('USER_INVALID_INPUT', { message });
    this.name = 'AlertInputError';
  }
}

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest duration a rule takes (a condition's threshold, a throttle): a year, `365d`. */
const MAX_ALERT_DURATION_MS = 365 * 86_400_000;

/** `90s`, `10m`, `1h`, `2d` in ms; null for anything else (and for 0); Infinity past MAX_ALERT_DURATION_MS. */
export function parseAlertDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms === 0) return null;
  return ms > MAX_ALERT_DURATION_MS ? Infinity : ms;
}

const tooLong = (what: string, text: string): AlertInputError => new AlertInputError(`${what} must be at most 365d (a year), got "${text}"`);

interface ParsedWhen {
  condition: AlertCondition;
  thresholdMs: number | null;
  thresholdCount: number | null;
}

export function parseWhen(when: string): ParsedWhen {
  const [name = '', value, ...extra] = when.trim().split('=');
  const condition = ALERT_CONDITIONS.find((c) => c === name);
  if (!condition) throw new AlertInputError(`unknown alert condition "${name}" (one of: ${ALERT_CONDITIONS.join(', ')})`);
  if (DURATION_CONDITIONS.includes(condition)) {
    const ms = value === undefined || extra.length > 0 ? null : parseAlertDuration(value);
    if (ms === null) throw new AlertInputError(`${condition} needs a duration like ${condition}=10m, got "${when}"`);
    if (ms === Infinity) throw tooLong(condition, when);
    return { condition, thresholdMs: ms, thresholdCount: null };
  }
  if (COUNT_CONDITIONS.includes(condition)) {
    const count = value !== undefined && extra.length === 0 && /^\d+$/.test(value) ? Number(value) : 0;
    if (count < 1 || count > 1_000) throw new AlertInputError(`${condition} needs a number of attempts from 1 to 1000 like ${condition}=3, got "${when}"`);
    return { condition, thresholdMs: null, thresholdCount: count };
  }
  if (value !== undefined) throw new AlertInputError(`${condition} takes no value, got "${when}"`);
  return { condition, thresholdMs: null, thresholdCount: null };
}

/** Checks a webhook URL: http or https with a host. The message never repeats the URL (it may hold a secret). */
export function checkWebhook(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new AlertInputError('--webhook must be an http or https URL (the value given is not a URL)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AlertInputError(`--webhook must be an http or https URL, not ${url.protocol.slice(0, 20)}`);
  }
  if (url.hostname === '') throw new AlertInputError('--webhook must name a host');
  return url.toString();
}

/**
 * What logs, the CLI and the window show of a webhook: scheme, host and port only. The path and
 * query are where receivers keep their secrets (Slack's /services/T…/B…/…, `?token=`), and a
 * user:password is a secret by definition, so none of them is shown at all, not even in part.
 */
export function redactWebhook(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return '(not a URL)';
  }
  const credentials = url.username !== '' || url.password !== '' ? '***@' : '';
  const rest = url.pathname !== '/' || url.search !== '' || url.hash !== '' ? '/…' : '/';
  return `${url.protocol}//${credentials}${url.host}${rest}`;
}

function optionalText(value: string | undefined, what: string): string | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (text === '' || text.length > 500) throw new AlertInputError(`--${what} must be 1 to 500 characters`);
  return text;
}

/**
 * Every error carries a known code and category (the taxonomy), so a filter on anything else
 * would make a rule that never fires: refused when the rule is added.
 */
function checkedCode(value: string | undefined): string | null {
  const code = optionalText(value, 'code');
  if (code !== null && !isErrorCode(code))
    throw new AlertInputError(
      `--code must be an error code like RUNTIME_CRASHED or RUNTIME_RATE_LIMIT (hivewatch errors --by code lists those seen), got "${code.slice(0, 100)}"`,
    );
  return code;
}

function checkedCategory(value: string | undefined): string | null {
  const category = optionalText(value, 'category');
  if (category !== null && !(ERROR_CATEGORIES as readonly string[]).includes(category))
    throw new AlertInputError(`--category must be one of ${ERROR_CATEGORIES.join(', ')}, got "${category.slice(0, 100)}"`);
  return category;
}

/** What a rule without any channel is told: it would fire into nothing. */
const NO_CHANNEL_MESSAGE = 'an alert rule needs somewhere to deliver: --webhook URL, --desktop, or both';

/** The webhook and desktop channels of an input: at least one. */
function channelsOf(input: AlertRuleInput): { webhook: string | null; desktop: boolean } {
  const desktop = input.desktop === true;
  const webhook = input.webhook === undefined || (desktop && input.webhook.trim() === '') ? null : checkWebhook(input.webhook);
  if (webhook === null && !desktop) throw new AlertInputError(NO_CHANNEL_MESSAGE);
  return { webhook, desktop };
}

/** A checked rule from its input; `id`, `now` and `by` come from the caller. */
export function ruleFromInput(input: AlertRuleInput, id: string, now: number, by: string): AlertRule {
  const when = parseWhen(input.when);
  const format = input.format ?? 'json';
  if (!(ALERT_FORMATS as readonly string[]).includes(format)) throw new AlertInputError(`--format must be json or slack, got "${format}"`);
  let throttleMs = DEFAULT_THROTTLE_MS;
  if (input.throttle !== undefined) {
    const ms = input.throttle.trim() === '0' ? 0 : parseAlertDuration(input.throttle);
    if (ms === null) throw new AlertInputError(`--throttle must be a duration like 10m (or 0 for none), got "${input.throttle}"`);
    if (ms === Infinity) throw tooLong('--throttle', input.throttle);
    throttleMs = ms;
  }
  const flow = optionalText(input.flow, 'flow');
  const category = checkedCategory(input.category);
  if (ISSUE_CONDITIONS.includes(when.condition) && (flow !== null || category !== null)) {
    // An issue's transition has no flow or category of its own (it spans runs): such a rule could never fire.
    throw new AlertInputError(
      `--${flow !== null ? 'flow' : 'category'} does not apply to ${when.condition}: an issue spans runs and flows; filter it with --code`,
    );
  }
  return {
    id,
    ...when,
    flow,
    code: checkedCode(input.code),
    category,
    ...channelsOf(input),
    format: format as AlertFormat,
    throttleMs,
    createdAt: now,
    createdBy: by,
  };
}

/** Where a rule delivers, as lists show it: `webhook`, `desktop` or `webhook + desktop`. */
export function describeChannels(rule: Pick<AlertRule, 'webhook' | 'desktop'>): string {
  return [rule.webhook !== null && 'webhook', rule.desktop && 'desktop'].filter(Boolean).join(' + ');
}

/** How a rule reads in a list: its condition with its value and filters. */
export function describeRule(rule: AlertRule): string {
  const value = rule.thresholdMs !== null ? `=${formatAlertDuration(rule.thresholdMs)}` : rule.thresholdCount !== null ? `=${rule.thresholdCount}` : '';
  const filters = [rule.flow && `flow ${rule.flow}`, rule.code && `code ${rule.code}`, rule.category && `category ${rule.category}`].filter(Boolean);
  return `${rule.condition}${value}${filters.length > 0 ? ` (${filters.join(', ')})` : ''}`;
}

export function formatAlertDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 1_000)}s`;
}
