import type { SessionSpec } from '../../flow/plan/plan.js';
import { renderTemplate } from '../../flow/syntax/template.js';
import type { SessionCall } from '../interpret/interpreter.js';

/**
 * A session's prompt for one attempt. `{feedback}` in a prompt is the previous attempt's failure
 * (empty on a first attempt; it shadows a variable of that name, which the checker allows only
 * in prompts). A session with a workspace that does not place it gets it as a final paragraph.
 */

export function placesFeedback(spec: SessionSpec): boolean {
  return spec.prompt?.parts.some((part) => part.kind === 'ref' && part.path[0] === 'feedback') ?? false;
}

export function promptWithFeedback(call: SessionCall, feedback: string | null): string {
  const template = call.spec.prompt;
  if (template === null) return feedback ?? '';
  const placed = placesFeedback(call.spec);
  const lookup = placed ? (path: readonly string[]) => (path[0] === 'feedback' && path.length === 1 ? (feedback ?? '') : call.lookup(path)) : call.lookup;
  const text = renderTemplate(template, lookup);
  return feedback === null || placed ? text : `${text}\n\n${feedback}`;
}
