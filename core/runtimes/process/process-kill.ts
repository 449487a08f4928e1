import { groupAlive, groupMembers } from './process-group.js';

/**
 * Ending an attempt's process group (rule 11): SIGTERM to the group, SIGKILL after a
 * grace period, and the group counted gone only once nothing of it runs, however it ended.
 *
 * - `terminate()` (timeout, cancel, a child that exited leaving `sleep 300 &` behind): SIGTERM,
 *   then SIGKILL after the grace if the group is still there.
 * - `kill()` (a forced cancel, rule 18): SIGKILL at once, cutting any grace short.
 * - A member in uninterruptible sleep can outlive even SIGKILL: one grace period after it the
 *   wait stops, and the members still running are reported as survivors.
 * - The pid may arrive after a signal was asked for (the spawner answers asynchronously):
 *   `started()` delivers what was asked meanwhile.
 */

/** How often to look whether an ended attempt's group is gone (no event tells of a grandchild's death). */
const GROUP_POLL_MS = 20;

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
}

/** Signals a whole process group; false when it is gone (ESRCH) or cannot be signalled. */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    // ESRCH: the group is already gone. Anything else (no group support): try the leader itself.
    if (errnoCode(error) === 'ESRCH') return;
    try {
      process.kill(pgid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

export class GroupEnding {
  private pgid: number | undefined;
  private terminating = false;
  private lastSignal: NodeJS.Signals | null = null;
  private gone = false;
  private killTimer: NodeJS.Timeout | undefined;
  private giveUpTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Members still running when the wait for the group gave up. */
  survivors: number[] = [];

  constructor(
    private readonly graceMs: number,
    /** Called once, when nothing of the group runs any more (or the wait gave up). */
    private readonly onGone: () => void,
  ) {}

  get isTerminating(): boolean {
    return this.terminating;
  }

  get isGone(): boolean {
    return this.gone;
  }

  /** The group now exists: deliver a signal asked for before its pid was known. */
  started(pgid: number): void {
    this.pgid = pgid;
    if (this.lastSignal !== null) signalGroup(pgid, this.lastSignal);
  }

  terminate(): void {
    if (this.terminating) return;
    this.terminating = true;
    this.signal('SIGTERM');
    this.killTimer = setTimeout(() => this.kill(), this.graceMs);
  }

  kill(): void {
    this.terminating = true;
    if (this.giveUpTimer !== undefined || this.gone) return;
    clearTimeout(this.killTimer);
    this.signal('SIGKILL');
    this.giveUpTimer = setTimeout(() => {
      this.survivors = this.pgid === undefined ? [] : (groupMembers(this.pgid) ?? []);
      this.markGone();
    }, this.graceMs);
  }

  /** The leader has exited (or was lost): end what it left in its group, then wait for the group to be gone. */
  afterLeaderExit(): void {
    const pgid = this.pgid;
    if (pgid === undefined || !groupAlive(pgid)) {
      this.markGone();
      return;
    }
    this.terminate();
    this.pollTimer = setInterval(() => {
      if (!groupAlive(pgid)) this.markGone();
    }, GROUP_POLL_MS);
  }

  /** Stops every timer; the group is no longer watched. */
  dispose(): void {
    for (const timer of [this.killTimer, this.giveUpTimer]) clearTimeout(timer);
    clearInterval(this.pollTimer);
  }

  private signal(signal: NodeJS.Signals): void {
    this.lastSignal = signal;
    if (this.pgid !== undefined) signalGroup(this.pgid, signal);
  }

  private markGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.dispose();
    this.onGone();
  }
}
