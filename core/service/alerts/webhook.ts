import type { AlertDelivery } from './alert-queries.js';
import type { AlertFormat, AlertRule } from './rules.js';

/**
 * A delivery's HTTP request: the body in the rule's format and one POST with a bounded timeout.
 * Formats (docs/triage.md, "Alerts"): `json`, Hivewatch's own documented body; `slack`, a body
 * Slack's incoming webhooks accept, `{"text": …, "blocks": […]}` where `text` is the
 * notification's fallback and `blocks` a section of mrkdwn and a context line
 * (https://api.slack.com/messaging/webhooks, https://api.slack.com/reference/block-kit/blocks).
 */

/** What the message says beyond the delivery itself: the alerts throttled since, and the delivery a follow-up refers to. */
export interface DeliveryContext {
  suppressed: { count: number; since: number } | null;
  refersTo: { id: string; title: string } | null;
}

const hhmm = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** The one line every format carries. */
function deliveryText(delivery: AlertDelivery, context: DeliveryContext): string {
  let text = delivery.kind === 'resolve' && context.refersTo ? `Resolved: ${context.refersTo.title}` : delivery.title;
  if (context.suppressed && context.suppressed.count > 0) text += ` (and ${context.suppressed.count} more since ${hhmm(context.suppressed.since)} UTC)`;
  return text;
}

export function jsonBody(rule: AlertRule, delivery: AlertDelivery, context: DeliveryContext): Record<string, unknown> {
  return {
    version: 1,
    delivery: delivery.id,
    kind: delivery.kind,
    rule: { id: rule.id, condition: rule.condition },
    subject: delivery.subject,
    title: delivery.title,
    text: deliveryText(delivery, context),
    facts: delivery.facts,
    refersTo: context.refersTo,
    suppressed: context.suppressed,
    at: new Date(delivery.createdAt).toISOString(),
  };
}

/** Slack's mrkdwn gives `&`, `<` and `>` meaning; they are escaped as its formatting guide says. */
function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export function slackBody(rule: AlertRule, delivery: AlertDelivery, context: DeliveryContext): Record<string, unknown> {
  const text = slackEscape(deliveryText(delivery, context));
  const about = [`rule ${rule.id} (${rule.condition})`, `delivery ${delivery.id}`];
  if (context.refersTo) about.push(`follows up delivery ${context.refersTo.id}`);
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: delivery.kind === 'resolve' ? `:white_check_mark: ${text}` : `*${text}*` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: slackEscape(about.join(' · ')) }] },
    ],
  };
}

export function bodyOf(format: AlertFormat, rule: AlertRule, delivery: AlertDelivery, context: DeliveryContext): string {
  return JSON.stringify(format === 'slack' ? slackBody(rule, delivery, context) : jsonBody(rule, delivery, context));
}

/** A receiver's answer: its status code, or why there was none (a timeout, a refused connection). */
export type PostResult = { status: number } | { error: string };

export type WebhookPost = (url: string, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<PostResult>;

/**
 * One POST through Node's fetch, given up after `timeoutMs` (a hanging receiver costs one timeout,
 * never a stuck queue). Errors name what went wrong, never the URL (its secrets stay out of logs).
 */
export const postWebhook: WebhookPost = async (url, body, headers, timeoutMs) => {
  try {
    const target = withoutCredentials(url);
    const response = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...target.authorization },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer's body is not needed; reading it lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { error: `no answer within ${timeoutMs} ms` };
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { error: cause ? `connection failed (${cause})` : 'connection failed' };
  }
};

/**
 * fetch refuses a URL with `user:pass@` (the Fetch standard forbids credentials in a request's
 * URL), so a receiver behind HTTP Basic authentication would never get a POST. The credentials
 * go where RFC 7617 puts them instead: `Authorization: Basic base64(user:pass)`, decoded from
 * the URL's percent-encoding first.
 */
export function withoutCredentials(text: string): { url: string; authorization: Record<string, string> } {
  const url = new URL(text);
  if (url.username === '' && url.password === '') return { url: text, authorization: {} };
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` } };
}
