import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import type { HivewatchEvent } from '../../base/events.js';
import { formatDuration } from '../../base/duration.js';

/**
 * Human progress for `hivewatch run` on a terminal: one line per meaningful event, and on a TTY
 * a status line that counts down to the next attempt of a task waiting in backoff.
 */
export class ProgressPrinter {
  private readonly names = new Map<string, string>();
  private readonly maxAttempts = new Map<string, number>();
  private readonly waiting = new Map<string, { until: number; label: string }>();
  private ticker: NodeJS.Timeout | null = null;
  private statusShown = false;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly now: () => number = Date.now,
    private readonly maxSteps = 100,
  ) {}

  private line(text: string): void {
    this.clearStatus();
    this.out.write(`${text}\n`);
    this.drawStatus();
  }

  private clearStatus(): void {
    if (this.statusShown) this.out.write('\r\x1b[2K');
    this.statusShown = false;
  }

  private drawStatus(): void {
    if (!this.out.isTTY || this.waiting.size === 0) return;
    const parts = [...this.waiting.values()].map((w) => `${w.label}: next attempt in ${formatDuration(Math.max(0, w.until - this.now()))}`);
    this.out.write(`  ⏳ ${parts.join(' · ')}`);
    this.statusShown = true;
  }

  private label(taskId: string): string {
    return this.names.get(taskId) ?? taskId;
  }

  handle(event: HivewatchEvent): void {
    switch (event.type) {
      case 'runStarted':
        this.line(
          `▶ run ${event.runId} · ${event.flowName}${event.resumedFrom ? ` (resumed from ${event.resumedFrom} after step ${event.resumeStep})` : ''}${event.retryOf ? ` (retry of ${event.retryOf})` : ''}`,
        );
        break;
      case 'stepStarted':
        this.line(`step ${event.step}/${this.maxSteps} · ${event.frontier.length} task(s): ${event.frontier.map((t) => t.name).join(', ')}`);
        break;
      case 'taskStarted':
        this.names.set(event.taskId, event.name);
        this.maxAttempts.set(event.taskId, event.maxAttempts);
        break;
      case 'attemptStarted':
        this.waiting.delete(event.taskId);
        this.line(`  · ${this.label(event.taskId)} · attempt ${event.attempt}/${this.maxAttempts.get(event.taskId) ?? '?'}`);
        break;
      case 'attemptFailed':
        this.line(`  ✗ ${this.label(event.taskId)} · attempt ${event.attempt} failed: ${event.error.code} — ${event.error.message}`);
        if (event.awaiting?.length) this.line(`    whether it counts waits for ${event.awaiting.map((id) => this.label(id)).join(', ')} to end (rule 6)`);
        break;
      case 'attemptJudgedCancelled':
        this.line(`  ⊘ ${this.label(event.taskId)} · attempt ${event.attempt} counts as cancelled: a lower sibling branch failed first`);
        break;
      case 'retryScheduled':
        this.waiting.set(event.taskId, { until: event.nextAttemptAt, label: this.label(event.taskId) });
        this.line(
          `  ↻ ${this.label(event.taskId)} · next attempt in ${formatDuration(event.delayMs)} (${event.strategy}${event.reason === undefined ? '' : `: ${event.reason}`})`,
        );
        if (event.usageLimit) {
          const at = new Date(event.nextAttemptAt).toISOString();
          const moved =
            event.usageLimit.movedFrom === undefined ? '' : ` — it moved: the last wait was for ${new Date(event.usageLimit.movedFrom).toISOString()}`;
          this.line(
            `  ⏸ ${this.label(event.taskId)} · waiting for the usage limit to reset at ${at}${moved} (reported: "${event.usageLimit.reported}"); Ctrl-C cancels now`,
          );
        }
        this.startTicker();
        break;
      case 'attemptCancelled':
        this.line(
          `  ⊘ ${this.label(event.taskId)} · attempt ${event.attempt} cancelled: a sibling branch failed${event.reported ? ` (it had ${event.reported.outcome})` : ''}`,
        );
        break;
      case 'backoffSkipped':
        this.waiting.delete(event.taskId);
        this.line(`  ⏭ ${this.label(event.taskId)} · backoff skipped (${event.commandId})`);
        break;
      case 'taskSucceeded':
        this.line(`  ✓ ${this.label(event.taskId)} · ${event.attempts} attempt(s)`);
        break;
      case 'taskFailed':
        this.waiting.delete(event.taskId);
        this.line(`  ✗ ${this.label(event.taskId)} · ${event.cancelled ? 'cancelled' : `failed: ${event.error.code}`}`);
        break;
      case 'cancelRequested':
        this.line(
          `■ cancel requested (${event.commandId})${event.forced ? ' — forcing: running agents get SIGKILL now' : event.alreadyCancelling ? ' — already cancelling' : ''}`,
        );
        break;
      case 'receiptIgnoredStale':
        this.line(`  · late result of ${this.label(event.taskId)} ignored (epoch ${event.epoch} < ${event.currentEpoch})`);
        break;
      case 'runCompleted':
        this.stop();
        this.line(`✔ completed in ${event.steps} step(s)`);
        break;
      case 'runFailed':
        this.stop();
        this.line(
          `✘ failed: ${event.error.code} — ${event.error.message}${causesOf(event.error)}${event.error.recovery_hint ? `\n  hint: ${event.error.recovery_hint}` : ''}`,
        );
        break;
      case 'runCancelled':
        this.stop();
        this.line(`■ cancelled${event.forced ? ' by force' : ''} (${event.cause.reason})`);
        break;
      default:
        break;
    }
  }

  private startTicker(): void {
    if (this.ticker || !this.out.isTTY) return;
    this.ticker = setInterval(() => {
      this.clearStatus();
      this.drawStatus();
    }, 1000);
    this.ticker.unref();
  }

  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.waiting.clear();
    this.clearStatus();
  }
}

/** The ending error's causes (rule 16), one line each: what an operator reads to see why. */
function causesOf(error: ErrorEnvelope): string {
  let lines = '';
  for (let cause = error.cause; cause !== undefined; cause = cause.cause) lines += `\n  ← ${cause.code} — ${cause.message}`;
  return lines;
}
