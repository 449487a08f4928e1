import type { AlertDelivery } from './alert-queries.js';
import type { AlertFormat, AlertRule } from './rules.js';

/**
 * A delivery's body in the rule's format (the POST itself is delivery/http-post.ts). Formats
 * (docs/triage.md, "Alerts"): `json`, Hivewatch's own documented body; `slack`, a body Slack's
 * incoming webhooks accept, `{"text": …, "blocks": […]}` where `text` is the notification's
 * fallback and `blocks` a section of mrkdwn and a context line
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
