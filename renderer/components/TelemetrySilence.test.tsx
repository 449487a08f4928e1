import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { HivewatchEvent, RunSummary, RunTelemetrySilence } from '../../core/service/api.js';
import { applyToLiveRun, type LiveRun } from '../live/run-summary.js';
import { JournalBuilder } from '../testing/events.js';
import { SilenceLine, SilenceNotice, silenceOfRun } from './TelemetrySilence.js';

/**
 * A live run whose telemetry went silent: the Runs row's line and the header's notice say the
 * service's words, counting on from the silence's start; the live row drops the silence when the
 * session sends again, when the silent attempt ends, or when the run ends.
 */

const MINUTE = 60_000;

function silentFor(ms: number, over: Partial<RunTelemetrySilence> = {}): RunTelemetrySilence {
  const silentSince = Date.now() - ms;
  return { origin: 'runtime:claude-code', lastSeenAt: silentSince, silentSince, silentMs: ms, expectedEveryMs: 5_000, taskId: null, attempt: null, ...over };
}

/** The run's row as the service listed it (with its silence, and its source when it is a session), then the events after. */
function replay(events: readonly HivewatchEvent[], listed: Partial<RunSummary>, extra: readonly HivewatchEvent[]): LiveRun | undefined {
  let live: LiveRun | undefined;
  for (const e of events) live = applyToLiveRun(live, e);
  live = { ...live!, summary: { ...live!.summary, ...listed } };
  for (const e of extra) live = applyToLiveRun(live, e);
  return live;
}

describe('telemetry silence in the window', () => {
  it('the Runs line and the header notice say how long and what was expected', () => {
    const silence = silentFor(4 * MINUTE + 20_000);
    expect(renderToStaticMarkup(<SilenceLine silence={silence} />)).toMatch(/>no telemetry for 4 min \(expected every 5 s\)</);
    const notice = renderToStaticMarkup(<SilenceNotice silence={{ ...silence, taskId: 'fix', attempt: 2 }} />);
    expect(notice).toContain('role="status"');
    expect(notice).toMatch(/No telemetry for 4 min \(expected every 5 s\) from the claude-code CLI of task fix, attempt 2, last at <time dateTime="[^"]+">/);
    const never = renderToStaticMarkup(<SilenceLine silence={{ ...silentFor(90_000), lastSeenAt: null }} />);
    expect(never).toContain('no telemetry since the attempt started 1 min ago (expected every 5 s)');
    const neverNotice = renderToStaticMarkup(<SilenceNotice silence={{ ...silentFor(90_000), lastSeenAt: null, taskId: 'fix', attempt: 1 }} />);
    expect(neverNotice).toContain('No telemetry since the attempt started 1 min ago (expected every 5 s) from the claude-code CLI of task fix, attempt 1');
    expect(neverNotice).toContain('Its exporter may not have started');
    expect(neverNotice).not.toContain('<time');
  });

  it('shows only on a live run', () => {
    const run = { status: 'completed', telemetrySilence: silentFor(MINUTE) } as unknown as RunSummary;
    expect(silenceOfRun(run)).toBeNull();
    expect(silenceOfRun({ ...run, status: 'running' })).toEqual(run.telemetrySilence);
  });

  it("an agent session's next event ends it; a flow run's only with the silent attempt's end or the run's", () => {
    const session = new JournalBuilder('ext_a', 1_000);
    session.start('external:claude-code', 1);
    const heard = session.add({ type: 'externalEvent', name: 'claude_code.user_prompt', known: true, taskId: null, attributes: {} });
    const external = replay(session.events.slice(0, -1), { source: 'runtime:claude-code', telemetrySilence: silentFor(MINUTE) }, [heard])!;
    expect(external.summary.telemetrySilence).toBeUndefined();

    const flow = new JournalBuilder('run_b', 1_000);
    flow.start();
    const silence = silentFor(MINUTE, { taskId: 'fix', attempt: 1 });
    const other = flow.add({
      type: 'attemptFailed',
      step: 1,
      ordinal: 1,
      taskId: 'other',
      attempt: 1,
      durationMs: 5,
      error: null,
    } as unknown as HivewatchEvent);
    expect(replay(flow.events.slice(0, -1), { telemetrySilence: silence }, [other])!.summary.telemetrySilence).toEqual(silence);
    const ended = flow.add({ type: 'attemptSucceeded', step: 1, ordinal: 0, taskId: 'fix', attempt: 1, durationMs: 5 } as HivewatchEvent);
    expect(replay(flow.events.slice(0, 1), { telemetrySilence: silence }, [ended])!.summary.telemetrySilence).toBeUndefined();
  });
});
