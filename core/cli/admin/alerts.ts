import type { AlertDeliveryView, AlertRuleView } from '../../service/alerts/alerts-api.js';
import { AlertInputError, formatAlertDuration, ruleFromInput, type AlertRuleInput } from '../../service/alerts/rules.js';
import type { CommandAlerts } from '../../service/history/command-history.js';
import { LIMITS } from '../../service/schemas.js';
import { intFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { openCliCommandHistory } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';

/**
 * `hivewatch alerts add|list|remove|test|deliveries`: alert rules and their
 * delivery log in the database (shared by every host of a PostgreSQL one). Webhooks are shown
 * redacted everywhere, `--json` included.
 */

export const ALERTS_BOOLEANS = ['json', 'desktop'] as const;
export const ALERTS_VALUES = ['db', 'when', 'flow', 'code', 'category', 'webhook', 'format', 'throttle', 'limit'] as const;

const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n') + '\n';
}

function ruleRows(rules: readonly AlertRuleView[]): string {
  const rows = rules.map((r) => [
    r.id,
    r.description,
    r.channels,
    r.webhook ?? '-',
    r.webhook === null ? '-' : r.format,
    r.throttleMs === 0 ? 'none' : formatAlertDuration(r.throttleMs),
    when(r.createdAt),
  ]);
  return table([['ID', 'WHEN', 'CHANNELS', 'WEBHOOK', 'FORMAT', 'THROTTLE', 'ADDED'], ...rows]);
}

function deliveryRows(deliveries: readonly AlertDeliveryView[]): string {
  const rows = deliveries.map((d) => [
    d.id,
    d.ruleId,
    d.kind,
    d.status,
    d.responseCode === null ? '-' : String(d.responseCode),
    String(d.attempts),
    when(d.createdAt),
    d.title,
  ]);
  return table([['DELIVERY', 'RULE', 'KIND', 'STATUS', 'CODE', 'ATTEMPTS', 'CREATED', 'TITLE'], ...rows]);
}

/** Where an added rule delivers, in words: "https://host/… (slack) and the desktop". */
function destinations(rule: AlertRuleView): string {
  return [rule.webhook !== null && `${rule.webhook} (${rule.format})`, rule.desktop && 'the desktop'].filter(Boolean).join(' and ');
}

function oneId(args: ParsedArgs, sub: string): string {
  if (args.positionals.length !== 2) throw new UsageError(`alerts ${sub} needs exactly one rule id`);
  return args.positionals[1]!;
}

export async function alertsCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  // `hivewatch alerts` alone lists the rules.
  const sub = args.positionals[0] ?? 'list';
  const json = args.flags.has('json');
  if (!['add', 'list', 'remove', 'test', 'deliveries'].includes(sub))
    throw new UsageError(`expected add, list, remove ID, test ID or deliveries, got "${sub}"`);
  if (sub !== 'add' && args.flags.has('desktop')) throw new UsageError('--desktop belongs to alerts add');
  if (sub !== 'remove' && sub !== 'test' && args.positionals.length > 1) throw new UsageError(`alerts ${sub} takes no further arguments`);
  // Bad input is refused before the database is opened: nothing is written for a rule that cannot be.
  const input = sub === 'add' ? addInput(args) : null;
  const history = await openCliCommandHistory(args, io);
  const { alerts } = history;
  try {
    if (input) {
      // `--flow` as the operator wrote it: a relative path is read from this directory (core/service/flows/ref.ts).
      const rule = await alerts.add(input, 'cli', Date.now(), process.cwd()).catch((error: unknown) => {
        throw error instanceof AlertInputError ? new UsageError(error.message) : error;
      });
      io.out(json ? `${JSON.stringify({ rule })}\n` : `added alert rule ${rule.id}: ${rule.description} → ${destinations(rule)}\n`);
      return ExitCode.ok;
    }
    if (sub === 'list') {
      const rules = await alerts.list();
      io.out(
        json
          ? `${JSON.stringify({ rules })}\n`
          : rules.length === 0
            ? 'no alert rules: add one with `hivewatch alerts add --when run-failed --webhook URL` (or --desktop)\n'
            : ruleRows(rules),
      );
      return ExitCode.ok;
    }
    if (sub === 'deliveries') {
      const deliveries = await alerts.deliveries(intFlag(args, 'limit', 1, LIMITS.maxListLimit) ?? 100);
      io.out(json ? `${JSON.stringify({ deliveries })}\n` : deliveries.length === 0 ? 'no alert deliveries yet\n' : deliveryRows(deliveries));
      return ExitCode.ok;
    }
    const id = oneId(args, sub);
    if (sub === 'remove') return await removeRule(alerts, id, io, json);
    return await testRule(alerts, id, io, json);
  } finally {
    await history.close();
  }
}

function addInput(args: ParsedArgs): AlertRuleInput {
  const whenText = stringFlag(args, 'when');
  if (whenText === undefined) throw new UsageError('alerts add needs --when CONDITION');
  const input: AlertRuleInput = {
    when: whenText,
    webhook: stringFlag(args, 'webhook'),
    desktop: args.flags.has('desktop'),
    flow: stringFlag(args, 'flow'),
    code: stringFlag(args, 'code'),
    category: stringFlag(args, 'category'),
    format: stringFlag(args, 'format'),
    throttle: stringFlag(args, 'throttle'),
  };
  try {
    // The one checker (rules.ts), run before the database is opened; the id and time are throwaway.
    ruleFromInput(input, 'check', 0, 'cli');
  } catch (error) {
    if (error instanceof AlertInputError) throw new UsageError(error.message);
    throw error;
  }
  return input;
}

async function removeRule(alerts: CommandAlerts, id: string, io: CliIo, json: boolean): Promise<number> {
  if (!(await alerts.remove(id))) {
    io.err(`hivewatch alerts: no alert rule "${id}" (see hivewatch alerts list)\n`);
    return ExitCode.failed;
  }
  io.out(json ? `${JSON.stringify({ removed: id })}\n` : `removed alert rule ${id}\n`);
  return ExitCode.ok;
}

async function testRule(alerts: CommandAlerts, id: string, io: CliIo, json: boolean): Promise<number> {
  if (!(await alerts.exists(id))) {
    io.err(`hivewatch alerts: no alert rule "${id}" (see hivewatch alerts list)\n`);
    return ExitCode.failed;
  }
  const view = await alerts.test(id, `cli-${process.pid}`);
  if (json) io.out(`${JSON.stringify({ delivery: view })}\n`);
  else if (view?.status === 'desktop') io.out(`test delivery ${view.id}: for the desktop only (every open Hivewatch window shows it)\n`);
  else if (view)
    io.out(
      `test delivery ${view.id}: ${view.status}${view.responseCode === null ? '' : ` (HTTP ${view.responseCode})`}${view.lastError ? `: ${view.lastError}` : ''}\n`,
    );
  return view?.status === 'sent' || view?.status === 'desktop' ? ExitCode.ok : ExitCode.failed;
}
