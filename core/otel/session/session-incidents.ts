import { stops, type Incident } from '../agent-incidents.js';
import { incidentError } from '../classify.js';
import { EXTERNAL_FLOW_PREFIX } from '../mapping.js';
import { SESSION_STEP, type SessionJournal } from './session-journal.js';

/**
 * An incident around the model (a hook, a compaction, a refusal, an internal error, an MCP
 * server: agent-incidents.ts) as the session's journal takes it (docs/otel.md "Hooks,
 * compaction, refusals, internal errors, MCP servers"): an `errorOccurred` with the one
 * classifier's code, in the open prompt's task and on its current attempt when one is open
 * (an MCP server that fails at start-up belongs to no prompt). The CLI goes on after each of
 * them, so each is handled (caught). One that stops what it happened in (a blocking hook, a
 * refusal) is the prompt's failure however it goes on, as a refused tool call is; the others
 * change nothing of its outcome. A linked session journals them too (the preset's result says
 * nothing of hooks or MCP servers) but leaves its prompt's outcome to the attempt's own result.
 */
export function journalIncident(j: SessionJournal, incident: Incident, ts: number, context: Record<string, unknown>, runtime: string): void {
  const r = j.row;
  const taskId = r.openTask;
  const error = incidentError(runtime, incident, {
    timestamp: ts,
    context,
    correlation: {
      flow: `${EXTERNAL_FLOW_PREFIX}${runtime}`,
      run: r.runId,
      step: SESSION_STEP,
      task: taskId,
      attempt: taskId !== null && r.openTaskAttempts > 0 ? r.openTaskAttempts : null,
    },
  }).toEnvelope();
  const ordinal = taskId !== null ? r.taskCount - 1 : null;
  const seq = j.push({ type: 'errorOccurred', ts, error, caught: true, retrying: false, step: SESSION_STEP, ordinal, taskId });
  if (taskId === null || j.linked || !stops(incident)) return;
  j.state.outcome = 'failed';
  j.state.failure = { seq, error };
  j.state.refused = j.state.refused ?? { seq, error };
}
