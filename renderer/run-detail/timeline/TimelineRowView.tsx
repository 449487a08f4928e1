import type { TaskView } from '../../../core/service/api.js';
import { OutcomeBadge } from '../../components/StatusBadge.js';
import { Countdown } from '../../components/Time.js';
import { ResetCountdown } from '../../components/UsageLimitWait.js';
import { formatDelay } from '../../lib/format.js';
import { attemptWallKey, type AttemptWall } from '../../lib/run-clock.js';
import { ROLE_TEXT, type EndingRole } from '../attempt/attempt-notes.js';
import { attemptKey, type AttemptWork } from '../attempt/attempt-work.js';
import { branchesText, waitTitle, type JudgmentWait } from './judgment-wait.js';
import { attemptsUsed, taskTitle } from '../attempt/task-title.js';
import type { StepBand, TimelineRow, TimelineSegment } from './timeline-layout.js';
import { segmentTitle } from './timeline-titles.js';

export interface TimelineRowProps {
  row: TimelineRow;
  tasks: readonly TaskView[];
  steps: readonly StepBand[];
  px: (x: number) => number;
  trackWidth: number;
  focused: boolean;
  active: boolean;
  virtual: boolean;
  picked: { taskId: string; attempt: number } | null;
  /** The row's one Tab stop (an attempt number); the arrow keys reach the others. */
  tabStop: number | null;
  onPick: (taskId: string, attempt: number | null) => void;
  onSkipBackoff: (task: TaskView) => void;
  walls: ReadonlyMap<string, AttemptWall>;
  roles: ReadonlyMap<string, EndingRole>;
  work?: ReadonlyMap<string, AttemptWork>;
  /** Set while the task's last failure waits for lower branches to settle the step (judgment-wait.ts). */
  judgmentWait?: JudgmentWait | undefined;
}

/**
 * "attempt 3 in 23s" while a task waits; on a virtual clock the wait takes no real time, so no
 * countdown. A wait for a usage limit's reset is said as the run header and the Runs list say it
 * ("limit resets in 51 min", components/UsageLimitWait.tsx): one countdown, one wording.
 */
function Waiting({ row, virtual }: { row: TimelineRow; virtual: boolean }) {
  const waiting = row.waiting;
  if (!waiting) return null;
  if (row.task.waitingUntil !== undefined && !virtual) {
    return (
      <span data-testid="timeline-limit-wait">
        attempt {waiting.attempt} · limit <ResetCountdown at={row.task.waitingUntil} />
      </span>
    );
  }
  return (
    <span>
      attempt {waiting.attempt}{' '}
      {virtual ? (
        <span title="the virtual clock jumps over the wait">after a virtual {formatDelay(waiting.delayMs)} wait</span>
      ) : (
        <Countdown at={waiting.nextAttemptAt} />
      )}
    </span>
  );
}

/** The row's header: the task's name, outcome and attempts, whether its error ended the run, and what it is waiting for. */
function TimelineRowLabel({
  row,
  tasks,
  virtual,
  active,
  roles,
  judgmentWait,
  onSkipBackoff,
}: Pick<TimelineRowProps, 'row' | 'tasks' | 'virtual' | 'active' | 'roles' | 'judgmentWait' | 'onSkipBackoff'>) {
  const t = row.task;
  const endedRun = t.attempts.some((a) => roles.get(attemptWallKey(t.taskId, a.attempt)) === 'ended');
  return (
    <div className="tl-label" role="rowheader">
      <div className="tl-name" title={taskTitle(t, tasks)}>
        {t.name}
      </div>
      <div className="tl-meta">
        <OutcomeBadge status={t.status} />
        <span className="muted" title="attempts used / allowed">
          {attemptsUsed(t.attempts.length, t.maxAttempts)}
        </span>
        <span className="muted mono">{t.taskId}</span>
      </div>
      {endedRun && (
        <div className="tl-role">
          <span className="badge ends-run">its error ended the run</span>
        </div>
      )}
      {judgmentWait && (
        <div className="tl-waiting tl-judgment" title={waitTitle(judgmentWait, tasks)} data-waiting-for={judgmentWait.waitingFor.join(' ')}>
          {judgmentWait.fact} · waiting for {branchesText(judgmentWait.waitingFor, tasks)} to settle the step
        </div>
      )}
      {row.waiting && (
        <div className="tl-waiting">
          <Waiting row={row} virtual={virtual} />
          {/* An attempt before a usage limit's reset meets the limit again: nothing to cut short. */}
          {active && t.waitingUntil === undefined && (
            <button type="button" className="small primary" onClick={() => onSkipBackoff(t)}>
              Retry now
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** What a segment needs from its row beyond itself: the clock, the picked attempt and the keyboard's stop, and what is known of each attempt. */
type SegmentContext = Pick<TimelineRowProps, 'virtual' | 'picked' | 'tabStop' | 'onPick' | 'walls' | 'roles' | 'work'>;

interface AttemptBarProps {
  task: TaskView;
  segment: TimelineSegment;
  attempt: TaskView['attempts'][number] | undefined;
  style: { left: number; width: number };
  title: string;
  ctx: SegmentContext;
}

/** An attempt's bar: a button that picks the attempt (or lets it go), saying how its error played out in the run. */
function AttemptBar({ task: t, segment: s, attempt, style, title, ctx }: AttemptBarProps) {
  const { picked, roles, tabStop, onPick } = ctx;
  const isPicked = picked?.taskId === t.taskId && picked.attempt === s.attempt;
  const role = roles.get(attemptWallKey(t.taskId, s.attempt));
  const lines = title.split('\n');
  return (
    <button
      type="button"
      className={`seg seg-attempt outcome-${s.status}${isPicked ? ' picked' : ''}${role ? ` role-${role}` : ''}${attempt?.cancelledBy ? ' by-sibling' : ''}`}
      style={style}
      title={title}
      aria-label={role ? `${lines[0]}; its error ${ROLE_TEXT[role]}` : lines[0]}
      data-attempt={s.attempt}
      data-role={role}
      tabIndex={s.attempt === tabStop ? 0 : -1}
      onClick={() => onPick(t.taskId, isPicked ? null : s.attempt)}
    >
      {s.label}
    </button>
  );
}

/** One segment of a task's track: an attempt's bar, the backoff before the next attempt, or the attempt still to come. */
function SegmentView({ task: t, segment: s, px, ctx }: { task: TaskView; segment: TimelineSegment; px: (x: number) => number; ctx: SegmentContext }) {
  const { virtual, walls, roles, work } = ctx;
  const style = { left: px(s.x), width: Math.max(2, px(s.width)) };
  const attempt = t.attempts.find((a) => a.attempt === s.attempt);
  const title = segmentTitle(t, s, {
    virtual,
    walls,
    roles,
    work: work?.get(attemptKey(t.taskId, s.attempt)),
    attempt: s.kind === 'attempt' ? attempt : undefined,
  });
  if (s.kind === 'attempt') return <AttemptBar task={t} segment={s} attempt={attempt} style={style} title={title} ctx={ctx} />;
  if (s.kind === 'backoff') {
    return (
      <div className={`seg seg-backoff backoff-${s.status}`} style={style} title={title} aria-label={s.why ?? title} data-delay-ms={s.delayMs ?? 0}>
        <span className="seg-label">{s.label}</span>
      </div>
    );
  }
  return (
    <div className="seg seg-pending" style={style} title={title}>
      {s.label}
    </div>
  );
}

/** React keys of a row's segments: an attempt and the backoff leading to it share its number. */
const SEGMENT_KEY = { attempt: 'a', backoff: 'b', pending: 'p' } as const;

/** One task of the retry timeline: its name and outcome, then a bar per attempt and the gaps between them. */
export function TimelineRowView(props: TimelineRowProps) {
  const { row, steps, px, trackWidth, focused } = props;
  const t = row.task;
  return (
    <div className={`tl-row${focused ? ' focused' : ''}`} role="row" data-task-id={t.taskId}>
      <TimelineRowLabel {...props} />
      <div className="tl-track" role="cell" style={{ width: trackWidth }}>
        {steps.map((band, i) => (
          <div key={band.step} className={`tl-band band-${i % 2}`} style={{ left: px(band.x), width: px(band.width) }} />
        ))}
        {row.segments.map((s) => (
          <SegmentView key={`${SEGMENT_KEY[s.kind]}${s.attempt}`} task={t} segment={s} px={px} ctx={props} />
        ))}
      </div>
    </div>
  );
}
