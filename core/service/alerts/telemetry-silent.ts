import { silenceWords } from '../../common/telemetry-silence.js';
import { all, type Dialect, type Query } from '../../store/queries/plan.js';
import type { HivewatchStore } from '../../store/contract.js';
import { silentSources, type SilentSource } from '../telemetry/health.js';
import type { Occurrence } from './occurrences.js';
import type { AlertRule } from './rules.js';

/**
 * `telemetry-silent-longer-than=N`: a source expected to be sending (an open agent session, the
 * CLI of a preset attempt still running) has sent nothing for longer than N (docs/otel.md
 * "Telemetry health"). Checked on every pass, as approval-pending-longer-than is. One delivery per
 * silence: the occurrence is the silence's start (the source's last payload), so the same silence
 * never alerts twice and the next one alerts again. Once the source is no longer silent (it sent
 * again, or its session or attempt ended: the follow-up says which) its fire gets a resolve follow-up.
 */

const TELEMETRY_SILENT = 'telemetry-silent-longer-than';

/** Subjects are `telemetry:<run>` for a session, `telemetry:<run>/<task>/<attempt>` for a preset attempt. */
const SUBJECT_PREFIX = 'telemetry:';

const subjectOf = (s: Pick<SilentSource, 'runId' | 'taskId' | 'attempt'>): string =>
  s.taskId === null ? `${SUBJECT_PREFIX}${s.runId}` : `${SUBJECT_PREFIX}${s.runId}/${s.taskId}/${s.attempt}`;

function titleOf(source: SilentSource): string {
  const agent = source.origin.replace(/^runtime:/, '');
  const words = silenceWords(source);
  if (source.taskId === null) return `Agent session ${source.runId} (${source.flow}): ${words}`;
  return `Run ${source.runId} of ${source.flowName}: the ${agent} CLI of task ${source.taskId} attempt ${source.attempt} has sent ${words}`;
}

export interface TelemetrySilentPass {
  occurrences: Occurrence[];
  /** Subjects fired for earlier whose source is no longer silent, with why: each gets its resolve follow-up. */
  spokeAgain: { subject: string; why: string }[];
}

export async function telemetrySilentPass(store: HivewatchStore, rules: readonly AlertRule[], now: number): Promise<TelemetrySilentPass> {
  const watching = rules.filter((r) => r.condition === TELEMETRY_SILENT);
  if (watching.length === 0) return { occurrences: [], spokeAgain: [] };
  const silent = await silentSources(store, now);
  const occurrences = silent.map((source): Occurrence => {
    const title = titleOf(source);
    return {
      condition: TELEMETRY_SILENT,
      subject: subjectOf(source),
      occurrence: `silent:${source.silentSince}`,
      throttleKey: `flow:${source.flow}`,
      title,
      flow: source.flow,
      flowName: source.flowName,
      code: null,
      category: null,
      silentMs: source.silentMs,
      facts: {
        condition: TELEMETRY_SILENT,
        text: title,
        runId: source.runId,
        flow: source.flow,
        at: now,
        ...(source.taskId !== null ? { taskId: source.taskId } : {}),
        origin: source.origin,
        lastSeenAt: source.lastSeenAt,
        expectedEveryMs: source.expectedEveryMs,
      },
    };
  });
  const stillSilent = new Set(occurrences.map((o) => o.subject));
  const fired = await store.runStatements((d) =>
    unresolvedSilences(
      d,
      watching.map((r) => r.id),
    ),
  );
  const spokeAgain: TelemetrySilentPass['spokeAgain'] = [];
  for (const subject of fired) if (!stillSilent.has(subject)) spokeAgain.push({ subject, why: await whyNoLongerSilent(store, subject) });
  return { occurrences, spokeAgain };
}

/** Why a fired source is no longer silent: what it was waited for ended, else it sent again. */
async function whyNoLongerSilent(store: HivewatchStore, subject: string): Promise<string> {
  const [runId, taskId, attempt] = subject.slice(SUBJECT_PREFIX.length).split('/');
  if (taskId === undefined) {
    const row = await store.getRunRow(runId!);
    return row && row.status !== 'running' ? `the session ended: ${row.status}` : 'its telemetry arrived again';
  }
  const detail = await store.getRun(runId!);
  const ended = detail?.attempts.find((a) => a.taskId === taskId && String(a.attempt) === attempt)?.endedAt ?? null;
  return detail === null || ended !== null ? 'the attempt ended' : 'its telemetry arrived again';
}

/** The subjects of this condition's fires (of these rules) that have no resolve follow-up yet. */
function* unresolvedSilences(_dialect: Dialect, ruleIds: readonly string[]): Query<string[]> {
  const rows = yield* all<{ subject: string }>(
    `SELECT DISTINCT subject FROM alert_deliveries AS d
      WHERE kind = 'fire' AND status <> 'throttled' AND rule_id IN (${ruleIds.map(() => '?').join(', ')})
        AND NOT EXISTS (SELECT 1 FROM alert_deliveries AS r WHERE r.kind = 'resolve' AND r.refers_to = d.id)
      ORDER BY subject`,
    ruleIds,
  );
  return rows.map((r) => r.subject);
}
