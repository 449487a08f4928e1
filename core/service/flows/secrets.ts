import { checkFlow } from '../../flow/check/check.js';
import type { FlowPlan } from '../../flow/plan/plan.js';
import { agentSecrets, markerPattern, Redactor, secretMarker } from '../../runtimes/secrets/secrets.js';
import { ApiError } from '../../common/api-errors.js';

/**
 * The Flows screen shows a flow's text with its agents' secrets replaced by `[secret NAME]`:
 * the window never shows a secret, not even the operator's own file. A draft edited from that
 * text carries the markers back; saving puts the values of the flow it was made from back in
 * their place, so editing a flow in the window loses nothing, and a marker nothing can fill is
 * refused rather than written into the file as if it were the value.
 */

export function flowRedactor(plan: FlowPlan | null): Redactor {
  return Redactor.ofAgents(plan ? plan.agents.values() : []);
}

/** The flow's text as the window may show it. */
export function shownSource(source: string, plan: FlowPlan | null): string {
  return flowRedactor(plan).text(source);
}

/** Each marker's value in the flow the draft came from; null for a name whose agents disagree. */
function valuesByName(source: string, file: string): Map<string, string | null> {
  const byName = new Map<string, string | null>();
  for (const agent of checkFlow(source, file).plan?.agents.values() ?? []) {
    for (const [value, name] of agentSecrets(agent)) {
      // In a flow's text a value stands whole in its env: entry, so its marker stands for it whole.
      if (value !== agent.env[name]) continue;
      const known = byName.get(name);
      byName.set(name, known === undefined || known === value ? value : null);
    }
  }
  return byName;
}

/**
 * The draft with every marker replaced by the value it hides in `from` (the flow the draft was
 * made from, its text as on disk). 400 `hidden_secret` when a marker stays unfilled.
 */
export function restoreSecrets(draft: string, from: { source: string; id: string } | null): string {
  const markers = [...draft.matchAll(markerPattern())];
  if (markers.length === 0) return draft;
  const values = from ? valuesByName(from.source, from.id) : new Map<string, string | null>();
  const missing = [...new Set(markers.map((m) => m[1] as string).filter((name) => typeof values.get(name) !== 'string'))];
  if (missing.length > 0) {
    const shown = missing.map(secretMarker).join(', ');
    throw new ApiError(
      'hidden_secret',
      `the draft holds ${shown} where the window hid a secret${from ? ` that ${from.id} does not hold (or holds twice with different values)` : ''}; ` +
        'save it from the flow it was copied from, or write the value into the file yourself: the window never shows or guesses secrets',
    );
  }
  return draft.replace(markerPattern(), (_found, name: string) => values.get(name) as string);
}
