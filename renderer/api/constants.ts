import type { ApiMethod } from '../../core/service/api.js';

/**
 * Constants of core/service/api.ts the clients need at run time. The renderer may import only
 * types from core/, so they are repeated here; a test checks they match.
 */
export const API_METHODS: readonly ApiMethod[] = [
  'startRun',
  'cancelRun',
  'retryRun',
  'resumeRun',
  'skipBackoff',
  'listRuns',
  'countRuns',
  'getRun',
  'getEvents',
  'listFlows',
  'checkFlow',
  'saveFlow',
  'getNotificationSettings',
  'setFlowMuted',
  'errorCounts',
  'failureCounts',
  'errorSeries',
  'errorGroups',
  'listErrors',
  'listAlertRules',
  'addAlertRule',
  'removeAlertRule',
  'testAlertRule',
  'listAlertDeliveries',
  'listDesktopAlerts',
  'usageByFlow',
  'costSplit',
  'flowHealth',
  'bulkRuns',
  'listIssues',
  'getIssue',
  'setIssueStatus',
  'getIssueDetail',
  'databaseStatus',
];

/** Where the browser shell's token lives once the page took it from `?token=`. */
export const TOKEN_STORAGE_KEY = 'hivewatch.token';
