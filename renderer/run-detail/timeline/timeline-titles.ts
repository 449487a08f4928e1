import type { AttemptView, TaskView } from '../../../core/service/api.js';
import { formatAbsolute, formatDelay, formatDuration } from '../../lib/format.js';
import { attemptWallKey, type AttemptWall } from '../../lib/run-clock.js';
import { ROLE_TEXT, stopNote, type EndingRole } from '../attempt/attempt-notes.js';
import { workSummary, type AttemptWork } from '../attempt/attempt-work.js';
import { attemptOfLimit } from '../attempt/task-title.js';
import type { TimelineSegment } from './timeline-layout.js';

/**
 * The tooltip (and accessible name) of each timeline segment. Times of day are wall times (the
 * journal's, run-clock.ts); durations and delays are on the run's clock, labelled "virtual" on
 * a virtual clock, which jumps over every wait: a scheduled time on it is never a time of day.
 */

export interface TitleContext {
  virtual: boolean;
  walls: ReadonlyMap<string, AttemptWall>;
  /** Attempts the ending error's chain names (attemptKey → role). */
  roles: ReadonlyMap<string, EndingRole>;
  work?: AttemptWork;
  attempt?: AttemptView;
}

const virtualWord = (ctx: TitleContext): string => (ctx.virtual ? 'virtual ' : '');

function attemptTitle(task: TaskView, s: TimelineSegment, ctx: TitleContext): string {
  const wall = ctx.walls.get(attemptWallKey(task.taskId, s.attempt));
  const role = ctx.roles.get(attemptWallKey(task.taskId, s.attempt));
  const stopped = ctx.attempt ? stopNote(ctx.attempt) : null;
  const lines = [`Attempt ${attemptOfLimit(s.attempt, task.maxAttempts)}: ${stopped ?? s.status}, ${virtualWord(ctx)}${formatDuration(s.end - s.start)}`];
  if (role) lines.push(`Its error ${ROLE_TEXT[role]}.`);
  if (wall) lines.push(`started ${formatAbsolute(wall.started)}`);
  const summary = workSummary(ctx.work);
  if (summary) lines.push(summary);
  if (s.error) lines.push(`${s.error.code} (${s.error.category}, from ${s.error.origin})`, s.error.message, 'Click for the whole error.');
  return lines.join('\n');
}

function backoffTitle(task: TaskView, s: TimelineSegment, ctx: TitleContext): string {
  const from = ctx.walls.get(attemptWallKey(task.taskId, s.attempt - 1))?.ended ?? null;
  const lines = [`Backoff before attempt ${s.attempt}: ${virtualWord(ctx)}${formatDelay(s.delayMs ?? 0)}`];
  if (ctx.virtual) lines.push('The virtual clock jumped over it: no real time passed.');
  if (s.why) lines.push(s.why);
  if (from !== null) lines.push(`from ${formatAbsolute(from)}`);
  return lines.join('\n');
}

function pendingTitle(task: TaskView, s: TimelineSegment, ctx: TitleContext): string {
  const which = `Attempt ${attemptOfLimit(s.attempt, task.maxAttempts)}`;
  return ctx.virtual ? `${which} starts after its virtual ${formatDelay(s.delayMs ?? 0)} wait` : `${which} starts at ${formatAbsolute(s.start)}`;
}

export function segmentTitle(task: TaskView, s: TimelineSegment, ctx: TitleContext): string {
  if (s.kind === 'backoff') return backoffTitle(task, s, ctx);
  if (s.kind === 'pending') return pendingTitle(task, s, ctx);
  return attemptTitle(task, s, ctx);
}
