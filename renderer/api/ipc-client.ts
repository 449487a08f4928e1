import type { ApiMethod, BridgeReply, HivewatchApi, HivewatchBridge, LiveEvent, SubscribeOptions } from '../../core/service/api.js';
import { ApiError } from './errors.js';

/**
 * HivewatchApi over Electron's preload bridge (`window.hivewatch`). Calls come back as data
 * (`{ok, value}` or `{ok: false, error}`) because IPC loses error classes; failures are turned
 * back into ApiError with the service's status, code and message.
 */
export function createIpcClient(bridge: HivewatchBridge): HivewatchApi {
  const call = async <T>(method: ApiMethod, input?: unknown): Promise<T> => {
    const reply: BridgeReply = await bridge.invoke(method, input);
    if (!reply.ok) throw new ApiError(reply.error.status, reply.error.code, reply.error.message);
    return reply.value as T;
  };
  return {
    startRun: (input) => call('startRun', input),
    cancelRun: (input) => call('cancelRun', input),
    retryRun: (input) => call('retryRun', input),
    resumeRun: (input) => call('resumeRun', input),
    skipBackoff: (input) => call('skipBackoff', input),
    listRuns: (input) => call('listRuns', input),
    countRuns: (input) => call('countRuns', input),
    bulkRuns: (input) => call('bulkRuns', input),
    getRun: (input) => call('getRun', input),
    getEvents: (input) => call('getEvents', input),
    listFlows: () => call('listFlows'),
    databaseStatus: () => call('databaseStatus'),
    checkFlow: (input) => call('checkFlow', input),
    saveFlow: (input) => call('saveFlow', input),
    getNotificationSettings: () => call('getNotificationSettings'),
    setFlowMuted: (input) => call('setFlowMuted', input),
    errorCounts: (input) => call('errorCounts', input),
    failureCounts: (input) => call('failureCounts', input),
    errorSeries: (input) => call('errorSeries', input),
    errorGroups: (input) => call('errorGroups', input),
    listErrors: (input) => call('listErrors', input),
    listAlertRules: () => call('listAlertRules'),
    addAlertRule: (input) => call('addAlertRule', input),
    removeAlertRule: (input) => call('removeAlertRule', input),
    testAlertRule: (input) => call('testAlertRule', input),
    listAlertDeliveries: (input) => call('listAlertDeliveries', input),
    listDesktopAlerts: (input) => call('listDesktopAlerts', input),
    usageByFlow: (input) => call('usageByFlow', input),
    costSplit: (input) => call('costSplit', input),
    flowHealth: (input) => call('flowHealth', input),
    listIssues: (input) => call('listIssues', input),
    getIssue: (input) => call('getIssue', input),
    setIssueStatus: (input) => call('setIssueStatus', input),
    getIssueDetail: (input) => call('getIssueDetail', input),
    subscribe(listener: (batch: LiveEvent[]) => void, options: SubscribeOptions = {}): () => void {
      return bridge.subscribe(options.afterId ?? 0, (message) => {
        if (message.kind === 'batch') listener(message.events);
        else if (message.kind === 'reset') options.onReset?.();
        else options.onReady?.(message.startId);
      });
    },
  };
}
