/**
 * Waiting on a person: a session blocked on a permission prompt (docs/otel.md "Waiting for
 * approval"). The telemetry mapping journals the prompt's start and end as two Hivewatch events
 * of the run (`externalEvent`s with these names); the store projects them onto the run row
 * (`approvalSince`, `approvalLabel`, `approvalWaitMs`), and the run list filters by the derived
 * state `waiting-approval` as it does by `waiting-limit`.
 */

/** A permission prompt opened: `{ tool, label, since, via }` (`via`: the record that said so). */
export const APPROVAL_REQUESTED = 'hivewatch.approval_requested';
/**
 * A permission prompt ended: `{ tool, label, since, waitedMs, decision, source, byPerson, via }`.
 * `byPerson`: the wait counts as time waiting on a person (a prompt was shown, or a person's
 * decision said how long it took).
 */
export const APPROVAL_ENDED = 'hivewatch.approval_ended';

/** The run list's filter of runs waiting for approval now (beside `waiting-limit`). */
export const WAITING_APPROVAL = 'waiting-approval';

/**
 * Who decided, as the CLIs name it: Claude Code's `user_permanent`, `user_temporary`,
 * `user_reject`, `user_abort`; Codex's `User`. `config` and `hook` decide without a person.
 */
export function isPersonSource(source: string | null | undefined): boolean {
  return typeof source === 'string' && /^user/i.test(source);
}

/** How a prompt reads: the tool and, when the telemetry names it, what it was asked to do (`Bash(rm -rf build)`). */
export function approvalLabel(tool: string, detail: string | null): string {
  return detail === null || detail === '' ? tool : `${tool}(${detail})`;
}
