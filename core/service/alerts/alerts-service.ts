import type { HivewatchStore } from '../../store/index.js';
import type { HivewatchApi } from '../api.js';
import { ApiError } from '../../common/api-errors.js';
import { parseInput } from '../schemas.js';
import { guard } from '../service-context.js';
import type { FlowFolders } from '../flows/keys.js';
import { flowRefScope } from '../flows/ref.js';
import { addAlertRule, alertRuleExists, deliveryView, listAlertDeliveries, listAlertRules, removeAlertRule } from './alerts-api.js';
import { desktopAlertFeed } from './desktop-feed.js';
import type { AlertEngine } from './engine.js';
import { AlertInputError } from './rules.js';

/**
 * The alerts part of the API: the window's Settings › Alerts screen. Input is
 * checked by the shared schemas, then by the rule checker (rules.ts), whose messages become 400s
 * word for word, as the CLI prints them.
 */

type AlertsApi = Pick<HivewatchApi, 'listAlertRules' | 'addAlertRule' | 'removeAlertRule' | 'testAlertRule' | 'listAlertDeliveries' | 'listDesktopAlerts'>;

const noRule = (id: string): ApiError => new ApiError('alert_rule_not_found', `no alert rule "${id}"`);

/** `folders`: where a rule's `--flow` finds flow files (the API has no directory: no relative paths). */
export function alertsApi(store: HivewatchStore, engine: () => AlertEngine | null, folders: FlowFolders): AlertsApi {
  return {
    listAlertRules: (...input: unknown[]) =>
      guard(() => {
        parseInput('listAlertRules', input[0]);
        return listAlertRules(store);
      }),

    addAlertRule: (input) =>
      guard(async () => {
        const args = parseInput('addAlertRule', input);
        try {
          return await addAlertRule(store, args, 'window', Date.now(), flowRefScope(store, folders, null));
        } catch (error) {
          if (error instanceof AlertInputError) throw new ApiError('invalid_input', error.message);
          throw error;
        }
      }),

    removeAlertRule: (input) =>
      guard(async () => {
        const { id } = parseInput('removeAlertRule', input);
        if (!(await removeAlertRule(store, id))) throw noRule(id);
        return { removed: true };
      }),

    testAlertRule: (input) =>
      guard(async () => {
        const { id } = parseInput('testAlertRule', input);
        const running = engine();
        if (!running) throw new ApiError('alerts_unavailable', 'alerts are not running in this process (the database is open read-only)');
        if (!(await alertRuleExists(store, id))) throw noRule(id);
        const delivery = await running.test(id);
        if (!delivery) throw noRule(id);
        return deliveryView(delivery);
      }),

    listAlertDeliveries: (input) =>
      guard(() => {
        const args = parseInput('listAlertDeliveries', input ?? {});
        return listAlertDeliveries(store, args.limit ?? 100);
      }),

    listDesktopAlerts: (input) =>
      guard(() => {
        const { after } = parseInput('listDesktopAlerts', input ?? {});
        return desktopAlertFeed(store, after, Date.now());
      }),
  };
}
