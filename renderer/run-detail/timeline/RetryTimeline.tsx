import { startTransition, useCallback, useEffect, useMemo, useRef, useState, type CSSProperties, type FocusEvent } from 'react';
import { FIRST_ROWS } from '../../lib/use-rows-in-stages.js';
import { useWidth } from '../../lib/use-width.js';
import type { RunDetail, TaskView } from '../../../core/service/api.js';
import { useNow } from '../../lib/use-now.js';
import { useDarkMode } from '../../lib/theme.js';
import { attemptWallKey, type AttemptWall } from '../../lib/run-clock.js';
import { timelineColorVars } from '../../lib/timeline-colors.js';
import { attemptKey, type AttemptWork } from '../attempt/attempt-work.js';
import type { AttemptInspection } from '../attempt/attempt-inspection.js';
import type { JudgmentWait } from './judgment-wait.js';
import { endingRoles, type EndingRole } from '../attempt/attempt-notes.js';
import { PickedAttempt } from '../attempt/PickedAttempt.js';
import { layoutTimeline, type TimelineLayout, type TimelineRow } from './timeline-layout.js';
import { ScrollCue } from './ScrollCue.js';
import { TimelineControls } from './TimelineControls.js';
import { TimelineTimeAxis } from './TimelineTimeAxis.js';
import { isFailedTask, shownRows, timeTicks, zoomFactor } from './timeline-view.js';
import { onTimelineKeyDown, useTimelineView } from './use-timeline-keys.js';
import { TimelineRowView } from './TimelineRowView.js';

export interface RetryTimelineProps {
  detail: RunDetail;
  active: boolean;
  /** A task to bring forward (from an error drill-down link, or the header's ending error). */
  focusTask: string | null;
  focusAttempt: number | null;
  /** Bumped to bring the focus target forward again (the same link clicked twice). */
  focusRequest?: number;
  onSkipBackoff: (task: TaskView) => void;
  /** Agent work per attempt (`attemptKey`), from the journal; empty without a workspace. */
  work?: ReadonlyMap<string, AttemptWork>;
  /** `taskId#attempt` → the reason a retryScheduled journaled (backoffReasons). */
  reasons?: ReadonlyMap<string, string>;
  /** What each attempt was asked and answered (`attemptKey`), from the journal. */
  inspections?: ReadonlyMap<string, AttemptInspection>;
  /** Each attempt's wall times (run-clock.ts `attemptWalls`), from the journal. */
  walls?: ReadonlyMap<string, AttemptWall>;
  /** taskId → its last failure's wait for lower branches (judgment-wait.ts), from the journal. */
  judgmentWaits?: ReadonlyMap<string, JudgmentWait>;
}

/** Width of the task column and the track's side margins (timeline CSS). */
const LABEL_WIDTH = 270;
const TRACK_MARGIN = 24;
/** A short run may be drawn up to this much larger than its natural size, never more. */
const MAX_STRETCH = 2.5;
const NO_WALLS: ReadonlyMap<string, AttemptWall> = new Map();

/** Natural layout width → pixels: stretched to fill a wide panel (within reason), else scrolled. */
function timelineScale(layoutWidth: number, available: number): number {
  if (layoutWidth <= 0 || available <= layoutWidth) return 1;
  return Math.min(MAX_STRETCH, available / layoutWidth);
}

/**
 * Selects the drill-down target (a task, and an attempt), scrolls its row into view and focuses
 * the attempt's bar: once per target and request, not again on every live refresh of the detail.
 */
function useFocusTarget(
  detail: RunDetail,
  props: Pick<RetryTimelineProps, 'focusTask' | 'focusAttempt' | 'focusRequest'>,
  pick: (p: { taskId: string; attempt: number }) => void,
  laidOut: boolean,
) {
  const root = useRef<HTMLDivElement>(null);
  const applied = useRef<string | null>(null);
  const { focusTask, focusAttempt, focusRequest = 0 } = props;
  useEffect(() => {
    const key = `${focusTask}#${focusAttempt}#${focusRequest}`;
    // Not before the track has its width: the bars move when the scale is known.
    if (!focusTask || !laidOut || applied.current === key) return;
    const task = detail.tasks.find((t) => t.taskId === focusTask);
    if (!task) return;
    applied.current = key;
    const attempt = focusAttempt ?? [...task.attempts].reverse().find((a) => a.error)?.attempt ?? task.attempts.at(-1)?.attempt;
    if (attempt === undefined) return;
    pick({ taskId: task.taskId, attempt });
    const row = [...(root.current?.querySelectorAll<HTMLElement>('.tl-row[data-task-id]') ?? [])].find((r) => r.dataset.taskId === task.taskId);
    const bar = row?.querySelector<HTMLElement>(`.seg-attempt[data-attempt="${attempt}"]`);
    if (!bar) {
      row?.scrollIntoView({ block: 'nearest' });
      return;
    }
    // Both ways: a late attempt of a wide run sits far right of the panel (measured: x = 1991 px
    // in a 1405 px window). Centred, clear of the pinned task column.
    bar.focus({ preventScroll: true });
    bar.scrollIntoView({ block: 'center', inline: 'center' });
  }, [focusTask, focusAttempt, focusRequest, detail.tasks, pick, laidOut]);
  return root;
}

/** The swatches' key and how to read the axis. */
function TimelineLegend({ virtual }: { virtual: boolean }) {
  return (
    <div className="timeline-legend" aria-hidden="true">
      <span className="swatch outcome-succeeded" /> succeeded
      <span className="swatch outcome-failed" /> failed
      <span className="swatch role-ended" /> ended the run
      <span className="swatch outcome-running" /> running
      <span className="swatch outcome-cancelled" /> cancelled
      <span className="swatch backoff" /> backoff (its delay)
      <span className="swatch pending" /> next attempt
      <span className="legend-note">
        Time runs left to right, compressed: labels give the exact delays{virtual ? ', on the run’s virtual clock (it jumps over every wait)' : ''}. Arrow keys
        move between attempts.
      </span>
    </div>
  );
}

/** The picked attempt's inspector under the timeline, or how to pick one. */
function PickedPanel({
  detail,
  layout,
  picked,
  virtual,
  props,
  roles,
}: {
  detail: RunDetail;
  layout: TimelineLayout;
  picked: { taskId: string; attempt: number } | null;
  virtual: boolean;
  props: RetryTimelineProps;
  roles: ReadonlyMap<string, EndingRole>;
}) {
  const { work, inspections, walls = NO_WALLS } = props;
  const task = picked ? detail.tasks.find((t) => t.taskId === picked.taskId) : undefined;
  const attempt = task?.attempts.find((a) => a.attempt === picked?.attempt);
  const why = picked
    ? layout.rows.find((r) => r.task.taskId === picked.taskId)?.segments.find((s) => s.kind === 'backoff' && s.attempt === picked.attempt + 1)?.why
    : undefined;
  return (
    <div className="timeline-detail" aria-live="polite">
      {task && attempt ? (
        <PickedAttempt
          task={task}
          attempt={attempt}
          virtual={virtual}
          why={why ?? undefined}
          inspection={inspections?.get(attemptKey(task.taskId, attempt.attempt))}
          work={work?.get(attemptKey(task.taskId, attempt.attempt))}
          wall={walls.get(attemptWallKey(task.taskId, attempt.attempt))}
          role={roles.get(attemptWallKey(task.taskId, attempt.attempt))}
        />
      ) : (
        <p className="muted hint">Hover an attempt for its error; click it to inspect it here: its prompt or command line, output, process and error.</p>
      )}
    </div>
  );
}

/** Each row's one Tab stop: the attempt last focused in it, else the picked one, else its last. */
function useTabStops() {
  const [stops, setStops] = useState<ReadonlyMap<string, number>>(new Map());
  const onFocus = (event: FocusEvent<HTMLElement>): void => {
    const bar = event.target.closest<HTMLElement>('.seg-attempt');
    const taskId = bar?.closest<HTMLElement>('.tl-row')?.dataset.taskId;
    const attempt = Number(bar?.dataset.attempt);
    if (taskId && Number.isInteger(attempt) && stops.get(taskId) !== attempt) setStops(new Map(stops).set(taskId, attempt));
  };
  const stopOf = (row: TimelineRow, picked: { taskId: string; attempt: number } | null): number | null =>
    stops.get(row.task.taskId) ??
    (picked?.taskId === row.task.taskId ? picked.attempt : (row.segments.filter((s) => s.kind === 'attempt').at(-1)?.attempt ?? null));
  return { onFocus, stopOf };
}

/**
 * Whether the timeline draws every row yet. Its first render with a width draws the first
 * FIRST_ROWS rows (more than a tall window shows), and the rest follow in a background render
 * React may interrupt, once: at 1440 × 900 a 200-task run's rows below the fold held back its
 * header and first rows by their render and layout. Unlike `useRowsInStages`, later changes (a
 * live run's every tick) are drawn whole at once, never twice.
 */
function useAllRowsAfterFirst(measured: boolean): boolean {
  const [allDrawn, setAllDrawn] = useState(false);
  useEffect(() => {
    if (measured && !allDrawn) startTransition(() => setAllDrawn(true));
  }, [measured, allDrawn]);
  return allDrawn;
}

/** A row per task, a bar per attempt, the grey gap of each backoff labelled with its delay. */
export function RetryTimeline(props: RetryTimelineProps) {
  const { detail, active, focusTask, onSkipBackoff, work, reasons, walls = NO_WALLS, judgmentWaits } = props;
  const ticking = useNow();
  const now = active ? ticking : (detail.run.endedAt ?? detail.run.startedAt);
  const layout = useMemo(() => layoutTimeline(detail, now, reasons, walls), [detail, now, reasons, walls]);
  const roles = useMemo(() => endingRoles(detail.run.endingError), [detail.run.endingError]);
  const [picked, setPicked] = useState<{ taskId: string; attempt: number } | null>(null);
  const [scrollRef, scrollWidth] = useWidth<HTMLDivElement>();
  const allDrawn = useAllRowsAfterFirst(scrollWidth > 0);
  // A task to focus is looked for once every row is drawn and the scale is known.
  const root = useFocusTarget(detail, props, setPicked, scrollWidth > 0 && allDrawn);
  const view = useTimelineView(root, layout.rows.length > 0);
  const tabStops = useTabStops();
  const { scroller } = view;
  const attachScroller = useCallback(
    (el: HTMLDivElement | null) => {
      scrollRef(el);
      scroller.current = el;
    },
    [scrollRef, scroller],
  );
  const dark = useDarkMode();
  const virtual = detail.run.clock === 'virtual';

  if (layout.rows.length === 0) return <p className="muted">No task has started yet.</p>;

  const scale = timelineScale(layout.width, scrollWidth - LABEL_WIDTH - TRACK_MARGIN - 2) * zoomFactor(view.zoom);
  const px = (x: number): number => Math.round(x * scale * 10) / 10;
  const trackWidth = Math.ceil(layout.width * scale);
  // The rows wait for the scroller's width. The ref measures it in the same commit, so rows drawn
  // at width 0 were drawn twice, and measuring them forced a layout of every row (on a 200-task
  // run, a second render and ~70 ms of layout before the first paint).
  const shown = scrollWidth > 0 ? shownRows(layout.rows, view.failedOnly) : [];
  const rows = allDrawn ? shown : shown.slice(0, FIRST_ROWS);
  // Over every shown row, so the time axis does not change when the rest of the rows come.
  const ticks = timeTicks(shown, { t0: layout.t0, virtual, scale, minGapPx: 84 });

  return (
    <div className="timeline" style={timelineColorVars(dark) as CSSProperties} ref={root}>
      <TimelineControls
        zoom={view.zoom}
        onZoom={view.setZoom}
        failedOnly={view.failedOnly}
        onFailedOnly={view.setFailedOnly}
        failedCount={layout.rows.filter((r) => isFailedTask(r.task)).length}
        taskCount={layout.rows.length}
      />
      <TimelineLegend virtual={virtual} />
      <ScrollCue scroller={view.scroller} trackWidth={trackWidth}>
        <div className="timeline-scroll" role="table" aria-label="Retry timeline" ref={attachScroller}>
          <div className="timeline-inner" onKeyDown={onTimelineKeyDown} onFocus={tabStops.onFocus}>
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
            <TimelineTimeAxis ticks={ticks} virtual={virtual} px={px} trackWidth={trackWidth} />
            {rows.map((row) => (
              <TimelineRowView
                key={row.task.taskId}
                row={row}
                tasks={detail.tasks}
                steps={layout.steps}
                px={px}
                trackWidth={trackWidth}
                focused={row.task.taskId === focusTask}
                active={active}
                virtual={virtual}
                picked={picked}
                tabStop={tabStops.stopOf(row, picked)}
                onPick={(taskId, attempt) => setPicked(attempt === null ? null : { taskId, attempt })}
                onSkipBackoff={onSkipBackoff}
                walls={walls}
                roles={roles}
                work={work}
                judgmentWait={judgmentWaits?.get(row.task.taskId)}
              />
            ))}
          </div>
        </div>
      </ScrollCue>
      <PickedPanel detail={detail} layout={layout} picked={picked} virtual={virtual} props={props} roles={roles} />
    </div>
  );
}
