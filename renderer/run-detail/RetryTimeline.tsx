import { useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import { useWidth } from '../lib/use-width.js';
import { hrefToRun } from '../app/router.js';
import type { RunDetail, TaskView } from '../../core/service/api.js';
import { OutcomeBadge } from '../components/StatusBadge.js';
import { Countdown } from '../components/Time.js';
import { formatAbsolute, formatDelay, formatDuration } from '../lib/format.js';
import { useNow } from '../lib/use-now.js';
import { useDarkMode } from '../lib/theme.js';
import { timelineColorVars } from '../lib/timeline-colors.js';
import { attemptKey, workSummary, type AttemptWork } from './attempt-work.js';
import type { AttemptInspection } from './attempt-inspection.js';
import { AttemptInspector } from './AttemptInspector.js';
import { attemptOfLimit, attemptsUsed, taskTitle } from './task-title.js';
import { layoutTimeline, type TimelineSegment } from './timeline-layout.js';

export interface RetryTimelineProps {
  detail: RunDetail;
  active: boolean;
  /** A task to bring forward (from an error drill-down link). */
  focusTask: string | null;
  focusAttempt: number | null;
  onSkipBackoff: (task: TaskView) => void;
  /** Agent work per attempt (`attemptKey`), from the journal; empty without a workspace. */
  work?: ReadonlyMap<string, AttemptWork>;
  /** `taskId#attempt` → the reason a retryScheduled journaled (backoffReasons). */
  reasons?: ReadonlyMap<string, string>;
  /** What each attempt was asked and answered (`attemptKey`), from the journal. */
  inspections?: ReadonlyMap<string, AttemptInspection>;
}

/** Width of the task column and the track's side margins (timeline CSS). */
const LABEL_WIDTH = 270;
const TRACK_MARGIN = 24;
/** A short run may be drawn up to this much larger than its natural size, never more. */
const MAX_STRETCH = 2.5;

/** Natural layout width → pixels: stretched to fill a wide panel (within reason), else scrolled. */
export function timelineScale(layoutWidth: number, available: number): number {
  if (layoutWidth <= 0 || available <= layoutWidth) return 1;
  return Math.min(MAX_STRETCH, available / layoutWidth);
}

function segmentTitle(task: TaskView, s: TimelineSegment, work?: AttemptWork): string {
  if (s.kind === 'backoff') {
    return `Backoff before attempt ${s.attempt}: ${formatDelay(s.delayMs ?? 0)}\n${s.why ?? ''}\nfrom ${formatAbsolute(s.start)}`;
  }
  if (s.kind === 'pending') return `Attempt ${attemptOfLimit(s.attempt, task.maxAttempts)} starts at ${formatAbsolute(s.start)}`;
  const summary = workSummary(work);
  const head = `Attempt ${attemptOfLimit(s.attempt, task.maxAttempts)}: ${s.status}, ${formatDuration(s.end - s.start)}${summary ? `\n${summary}` : ''}`;
  return s.error ? `${head}\n${s.error.code} (${s.error.category}, from ${s.error.origin})\n${s.error.message}\nClick for the whole error.` : head;
}

/** A row per task, a bar per attempt, the grey gap of each backoff labelled with its delay. */
export function RetryTimeline({ detail, active, focusTask, focusAttempt, onSkipBackoff, work, reasons, inspections }: RetryTimelineProps) {
  const ticking = useNow();
  const now = active ? ticking : (detail.run.endedAt ?? detail.run.startedAt);
  const layout = useMemo(() => layoutTimeline(detail, now, reasons), [detail, now, reasons]);
  const [picked, setPicked] = useState<{ taskId: string; attempt: number } | null>(null);
  const focusRef = useRef<HTMLDivElement>(null);
  const [scrollRef, scrollWidth] = useWidth<HTMLDivElement>();
  const dark = useDarkMode();

  // A drill-down link names a task (and attempt): select it and bring it into view, once per
  // target (not again on every live refresh of the detail).
  const appliedFocus = useRef<string | null>(null);
  useEffect(() => {
    const key = `${focusTask}#${focusAttempt}`;
    if (!focusTask || appliedFocus.current === key) return;
    const task = detail.tasks.find((t) => t.taskId === focusTask);
    if (!task) return;
    appliedFocus.current = key;
    const attempt = focusAttempt ?? [...task.attempts].reverse().find((a) => a.error)?.attempt ?? task.attempts.at(-1)?.attempt;
    if (attempt !== undefined) setPicked({ taskId: task.taskId, attempt });
    focusRef.current?.scrollIntoView({ block: 'nearest' });
  }, [focusTask, focusAttempt, detail.tasks]);

  if (layout.rows.length === 0) return <p className="muted">No task has started yet.</p>;

  const pickedTask = picked ? detail.tasks.find((t) => t.taskId === picked.taskId) : undefined;
  const pickedAttempt = pickedTask?.attempts.find((a) => a.attempt === picked?.attempt);
  const pickedWork = picked ? work?.get(attemptKey(picked.taskId, picked.attempt)) : undefined;
  const pickedWhy = picked
    ? layout.rows.find((r) => r.task.taskId === picked.taskId)?.segments.find((s) => s.kind === 'backoff' && s.attempt === picked.attempt + 1)?.why
    : undefined;
  const scale = timelineScale(layout.width, scrollWidth - LABEL_WIDTH - TRACK_MARGIN - 2);
  const px = (x: number): number => Math.round(x * scale * 10) / 10;
  const trackWidth = Math.ceil(layout.width * scale);

  return (
    <div className="timeline" style={timelineColorVars(dark) as CSSProperties}>
      <div className="timeline-legend" aria-hidden="true">
        <span className="swatch outcome-succeeded" /> succeeded
        <span className="swatch outcome-failed" /> failed
        <span className="swatch outcome-running" /> running
        <span className="swatch outcome-cancelled" /> cancelled
        <span className="swatch backoff" /> backoff (its delay)
        <span className="swatch pending" /> next attempt
        <span className="legend-note">Time runs left to right, compressed: labels give the exact delays.</span>
      </div>
      <div className="timeline-scroll" role="table" aria-label="Retry timeline" ref={scrollRef}>
        <div className="timeline-inner">
          <div className="tl-row tl-axis" role="row">
            <div className="tl-label" role="columnheader">
              Task
            </div>
            <div className="tl-track" role="columnheader" style={{ width: trackWidth }}>
              {layout.steps.map((band, i) => (
                <div key={band.step} className={`tl-band band-${i % 2}`} style={{ left: px(band.x), width: px(band.width) }}>
                  <span>Step {band.step}</span>
                  <span className="muted">{layout.ticks[i]?.label}</span>
                </div>
              ))}
            </div>
          </div>
          {layout.rows.map((row) => {
            const t = row.task;
            const focused = t.taskId === focusTask;
            return (
              <div key={t.taskId} className={`tl-row${focused ? ' focused' : ''}`} role="row" data-task-id={t.taskId} ref={focused ? focusRef : undefined}>
                <div className="tl-label" role="rowheader">
                  <div className="tl-name" title={taskTitle(t, detail.tasks)}>
                    {t.name}
                  </div>
                  <div className="tl-meta">
                    <OutcomeBadge status={t.status} />
                    <span className="muted" title="attempts used / allowed">
                      {attemptsUsed(t.attempts.length, t.maxAttempts)}
                    </span>
                    <span className="muted mono">{t.taskId}</span>
                  </div>
                  {row.waiting && (
                    <div className="tl-waiting">
                      <span>
                        attempt {row.waiting.attempt} <Countdown at={row.waiting.nextAttemptAt} />
                      </span>
                      {active && (
                        <button type="button" className="small primary" onClick={() => onSkipBackoff(t)}>
                          Retry now
                        </button>
                      )}
                    </div>
                  )}
                </div>
                <div className="tl-track" role="cell" style={{ width: trackWidth }}>
                  {layout.steps.map((band, i) => (
                    <div key={band.step} className={`tl-band band-${i % 2}`} style={{ left: px(band.x), width: px(band.width) }} />
                  ))}
                  {row.segments.map((s) => {
                    const style = { left: px(s.x), width: Math.max(2, px(s.width)) };
                    const title = segmentTitle(t, s, work?.get(attemptKey(t.taskId, s.attempt)));
                    if (s.kind === 'attempt') {
                      const isPicked = picked?.taskId === t.taskId && picked.attempt === s.attempt;
                      return (
                        <button
                          key={`a${s.attempt}`}
                          type="button"
                          className={`seg seg-attempt outcome-${s.status}${isPicked ? ' picked' : ''}`}
                          style={style}
                          title={title}
                          aria-label={title.split('\n')[0]}
                          data-attempt={s.attempt}
                          onClick={() => setPicked(isPicked ? null : { taskId: t.taskId, attempt: s.attempt })}
                        >
                          {s.label}
                        </button>
                      );
                    }
                    if (s.kind === 'backoff') {
                      return (
                        <div
                          key={`b${s.attempt}`}
                          className={`seg seg-backoff backoff-${s.status}`}
                          style={style}
                          title={title}
                          aria-label={s.why ?? title}
                          data-delay-ms={s.delayMs ?? 0}
                        >
                          <span className="seg-label">{s.label}</span>
                        </div>
                      );
                    }
                    return (
                      <div key={`p${s.attempt}`} className="seg seg-pending" style={style} title={title}>
                        {s.label}
                      </div>
                    );
                  })}
                </div>
              </div>
            );
          })}
        </div>
      </div>
      <div className="timeline-detail" aria-live="polite">
        {pickedTask && pickedAttempt ? (
          <div className="picked-attempt">
            <h3>
              {pickedTask.name} · attempt {attemptOfLimit(pickedAttempt.attempt, pickedTask.maxAttempts)}{' '}
              <OutcomeBadge status={pickedAttempt.status} />
              {pickedAttempt.delayAfterMs !== null && (
                <span className="muted picked-why"> · then waited {formatDelay(pickedAttempt.delayAfterMs)}{pickedWhy ? `: ${pickedWhy}` : ''}</span>
              )}
            </h3>
            <AttemptInspector attempt={pickedAttempt} inspection={inspections?.get(attemptKey(pickedTask.taskId, pickedAttempt.attempt))} work={pickedWork} virtual={detail.run.clock === 'virtual'} />
            {pickedAttempt.telemetry?.map((t) => (
              <p key={t.runId} className="attempt-telemetry">
                Inside this attempt, {t.origin} reported {t.apiCalls} API call{t.apiCalls === 1 ? '' : 's'} and {t.errors} error{t.errors === 1 ? '' : 's'}:{' '}
                <a href={hrefToRun(t.runId)}>session {t.sessionId.slice(0, 12)}</a>
              </p>
            ))}
          </div>
        ) : (
          <p className="muted hint">Hover an attempt for its error; click it to inspect it here: its prompt or command line, output, process and error.</p>
        )}
      </div>
    </div>
  );
}
