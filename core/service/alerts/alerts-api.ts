import { randomBytes } from 'node:crypto';
import type { HivewatchStore } from '../../store/contract.js';
import { getRule, insertRule, deliveriesAbout, listDeliveries, listRules, moveCursorToHeadIfNoRules, removeRule, type AlertDelivery } from './alert-queries.js';
import { bundledExamplesDir } from '../flows/keys.js';
import { FlowRefError, flowRefScope, resolveFlowRef, type FlowRefScope } from '../flows/ref.js';
import { AlertInputError, describeChannels, describeRule, redactWebhook, ruleFromInput, type AlertRule } from './rules.js';
import type { AlertDeliveryView, AlertRuleInput, AlertRuleView } from './views.js';

export type { AlertDeliveryView, AlertRuleView };

/**
 * Alert rules and the delivery log as the CLI, the API and the window see them: webhooks
 * redacted (scheme and host only), nothing that could carry a secret. One module so every
 * surface shows a rule the same way.
 */

function ruleView(rule: AlertRule): AlertRuleView {
  return {
    id: rule.id,
    condition: rule.condition,
    description: describeRule(rule),
    flow: rule.flow,
    code: rule.code,
    category: rule.category,
    webhook: rule.webhook === null ? null : redactWebhook(rule.webhook),
    desktop: rule.desktop,
    channels: describeChannels(rule),
    format: rule.format,
    throttleMs: rule.throttleMs,
    createdAt: rule.createdAt,
    createdBy: rule.createdBy,
  };
}

export function deliveryView(delivery: AlertDelivery): AlertDeliveryView {
  const waiting = delivery.status === 'pending' || delivery.status === 'failed';
  return {
    id: delivery.id,
    ruleId: delivery.ruleId,
    kind: delivery.kind,
    title: delivery.title,
    status: delivery.status,
    attempts: delivery.attempts,
    responseCode: delivery.responseCode,
    lastError: delivery.lastError,
    refersTo: delivery.refersTo,
    createdAt: delivery.createdAt,
    nextAttemptAt: waiting ? delivery.nextAttemptAt : null,
    sentAt: delivery.sentAt,
  };
}

/** Where a rule's `--flow` is resolved when the caller names no folders: the bundled examples, no directory. */
const defaultFlows = (store: HivewatchStore): FlowRefScope => flowRefScope(store, { examplesDir: bundledExamplesDir(), userFlowsDir: null }, null);

/**
 * Checks and stores a rule (AlertInputError for bad input); its view. `--flow` is kept in its one
 * form (flows/ref.ts), so a rule fires for the runs a bulk filter with the same words acts on.
 */
export async function addAlertRule(
  store: HivewatchStore,
  input: AlertRuleInput,
  by: string,
  now: number = Date.now(),
  flows: FlowRefScope = defaultFlows(store),
): Promise<AlertRuleView> {
  let flow: string | undefined;
  try {
    flow = input.flow === undefined ? undefined : await resolveFlowRef(input.flow, flows);
  } catch (error) {
    if (error instanceof FlowRefError) throw new AlertInputError(`--flow: ${error.message}`);
    throw error;
  }
  const rule = ruleFromInput({ ...input, flow }, `alr_${randomBytes(5).toString('hex')}`, now, by);
  await store.runStatements((d) => moveCursorToHeadIfNoRules(d, now));
  await store.runStatements((d) => insertRule(d, rule));
  return ruleView(rule);
}

export async function listAlertRules(store: HivewatchStore): Promise<AlertRuleView[]> {
  return (await store.runStatements((d) => listRules(d))).map(ruleView);
}

export async function alertRuleExists(store: HivewatchStore, id: string): Promise<boolean> {
  return (await store.runStatements((d) => getRule(d, id))) !== null;
}

export function removeAlertRule(store: HivewatchStore, id: string, now: number = Date.now()): Promise<boolean> {
  return store.runStatements((d) => removeRule(d, id, now));
}

/** The deliveries about an issue (its fingerprint) or a run, newest first. */
export async function alertDeliveriesAbout(store: HivewatchStore, subject: string): Promise<AlertDeliveryView[]> {
  return (await store.runStatements((d) => deliveriesAbout(d, subject))).map(deliveryView);
}

export async function listAlertDeliveries(store: HivewatchStore, limit = 100): Promise<AlertDeliveryView[]> {
  return (await store.runStatements((d) => listDeliveries(d, limit))).map(deliveryView);
}
