import type { AttemptView } from '../../../core/service/api.js';

/**
 * Which report a preset attempt's figures came from (docs/otel.md "Telemetry health"): its tokens,
 * cost and outcome are always the CLI's own output, journaled with the attempt's end (docs/presets.md
 * "Counted once, the result wins"); the CLI's telemetry, when it arrived, adds its requests one by
 * one. Said for an attempt whose usage is the CLI's result, so the operator can tell an attempt whose
 * telemetry never arrived from one that made no calls. Null for anything else (an agent session's
 * attempt is its telemetry; a command agent reports no usage).
 */
export function figuresSourceWords(attempt: Pick<AttemptView, 'usage' | 'telemetry'>): string | null {
  if (attempt.usage?.source !== 'result') return null;
  if ((attempt.telemetry ?? []).length > 0) return "Figures from the CLI's own result; its telemetry below lists the requests, not counted again.";
  return "Figures from the CLI's own result: no telemetry arrived from inside this attempt.";
}
