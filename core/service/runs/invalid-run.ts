import type { EventSink, FailureLink, HivewatchEvent, RunOptionsSnapshot } from '../../base/events.js';
import { ENGINE_SEMANTICS } from '../../engine/step/resume.js';
import { newRunId } from '../../base/ids.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { formatDiagnostic } from '../../flow/syntax/ast.js';
import { flowDigest } from '../../flow/plan/digest.js';
import type { CheckResult } from '../../flow/plan/plan.js';

/**
 * An attempt to run a flow that does not check is a failed run like any other:
 * `hivewatch run`, the API's `startRun` and a retry whose file has become invalid journal
 * `runStarted`, `errorOccurred` and `runFailed` with USER_INVALID_FLOW, whose context holds the
 * diagnostics (file:line:col), and whose `runFailed.chain` is that one occurrence
 * (core/base/events.ts `FailureLink`). So the failure is counted, grouped and alerted on, and
 * `retry` runs the flow again once it is fixed. `hivewatch check` stays free of side effects.
 */

/** The flow's text is kept in `runStarted.flowText` up to this size (a flow is a few KB); the digest always. */
export const INVALID_FLOW_TEXT_LIMIT = 64 * 1024;

export interface InvalidRunInput {
  /** The key the run is recorded under (a catalog id or the file's path). */
  flow: string;
  /** The file's text, or null when it is not text (binary, not UTF-8) or could not be read. */
  source: string | null;
  /** The check's result: its diagnostics are bounded (core/flow/syntax/source.ts), its count is not. */
  checked: Pick<CheckResult, 'diagnostics' | 'errorCount'>;
  options: RunOptionsSnapshot;
  retryOf: string | null;
  project: string | null;
  now: number;
  runId?: string;
}

/** The message an operator reads: the first error at its place, and how many more there are. */
export function invalidFlowMessage(flow: string, checked: Pick<CheckResult, 'diagnostics' | 'errorCount'>): string {
  const first = checked.diagnostics.find((d) => d.severity === 'error');
  if (first === undefined) return `${flow} does not check`;
  return `${formatDiagnostic(first)}${checked.errorCount > 1 ? ` (and ${checked.errorCount - 1} more)` : ''}`;
}

function flowNameOf(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.prose$/, '');
}

export function invalidFlowRunEvents(input: InvalidRunInput): HivewatchEvent[] {
  const runId = input.runId ?? newRunId();
  const ts = input.now;
  const source = input.source;
  const keepText = source !== null && Buffer.byteLength(source) <= INVALID_FLOW_TEXT_LIMIT;
  const error = new HivewatchError('USER_INVALID_FLOW', {
    message: invalidFlowMessage(input.flow, input.checked),
    origin: 'user',
    timestamp: ts,
    context: {
      diagnostics: input.checked.diagnostics.map((d) => ({ file: d.file, line: d.line, column: d.column, message: d.message, severity: d.severity })),
      errorCount: input.checked.errorCount,
      ...(source !== null && !keepText
        ? { flowTextOmitted: `the flow's text (${Buffer.byteLength(source)} bytes) is larger than ${INVALID_FLOW_TEXT_LIMIT} bytes` }
        : {}),
    },
    correlation: { project: input.project, flow: input.flow, run: runId, step: null },
  }).toEnvelope();
  const link: FailureLink = {
    seq: 2,
    code: error.code,
    category: error.category,
    origin: error.origin,
    message: error.message,
    step: null,
    taskId: null,
    attempt: null,
    how: null,
  };
  return [
    {
      runId,
      seq: 1,
      ts,
      type: 'runStarted',
      flow: input.flow,
      flowName: flowNameOf(input.flow),
      options: input.options,
      resumedFrom: null,
      retryOf: input.retryOf,
      resumeStep: 0,
      semantics: ENGINE_SEMANTICS,
      ...(source !== null ? { flowDigest: flowDigest(source) } : {}),
      ...(keepText ? { flowText: source } : {}),
    },
    { runId, seq: 2, ts, type: 'errorOccurred', error, caught: false, retrying: false, step: null, ordinal: null, taskId: null },
    { runId, seq: 3, ts, type: 'runFailed', error, chain: [link] },
  ];
}

/**
 * Journals the attempt through the service's sink and makes it durable before the caller is
 * answered, so the failed run is listed (and counted) by the time the refusal arrives. Its id.
 */
export async function journalInvalidRun(
  sink: EventSink,
  writePending: () => Promise<void>,
  input: Omit<InvalidRunInput, 'options' | 'now'> & { settings: { maxSteps: number; concurrency: number; virtual: boolean; defaultAgent: string | null } },
): Promise<string> {
  const { settings, ...rest } = input;
  const events = invalidFlowRunEvents({
    ...rest,
    options: {
      maxSteps: settings.maxSteps,
      concurrency: settings.concurrency,
      clock: settings.virtual ? 'virtual' : 'real',
      defaultAgent: settings.defaultAgent,
    },
    now: Date.now(),
  });
  for (const event of events) sink.append(event);
  await writePending();
  return (events[0] as HivewatchEvent).runId;
}
