import type { AlertConditionName } from '../../core/service/api.js';

/**
 * The conditions the add form offers, with what each needs after `=` (the renderer sees only
 * types from core/, so the list is repeated here; `satisfies` keeps it to the API's names).
 */
export const CONDITION_CHOICES = [
  { name: 'run-failed', label: 'A run failed (after its last attempt)', value: null },
  { name: 'new-issue', label: 'A new issue', value: null },
  { name: 'regression', label: 'A resolved issue came back', value: null },
  { name: 'escalating', label: 'An issue is escalating', value: null },
  { name: 'retrying-longer-than', label: 'A task has been retrying longer than…', value: 'duration' },
  { name: 'retrying-more-than', label: 'A task needs more attempts than…', value: 'count' },
  { name: 'running-longer-than', label: 'A run has been running longer than…', value: 'duration' },
  { name: 'usage-limit', label: 'A usage limit was hit', value: null },
  { name: 'session-failed', label: 'An agent session failed', value: null },
  { name: 'approval-pending-longer-than', label: 'An agent has waited for approval longer than…', value: 'duration' },
] as const satisfies readonly { name: AlertConditionName; label: string; value: 'duration' | 'count' | null }[];

/** `--when` as the API takes it: the condition, and its value when it has one. */
export function whenText(name: string, value: string): string {
  const choice = CONDITION_CHOICES.find((c) => c.name === name);
  return choice?.value && value.trim() !== '' ? `${name}=${value.trim()}` : name;
}
