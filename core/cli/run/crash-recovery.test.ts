import { randomUUID } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { groupAlive, groupLeadersWithEnvironment, signalGroupId } from '../../runtimes/process/process-group.js';
import { openHostStore } from '../../service/history/open.js';
import { seededRandom } from '../../testing/seeded-random.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { waiting } from '../../testing/waiting.js';

const tempDir = tempDirs();
const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');

const FLOW = `
agent worker:
  runtime: "fake"
let notes = session: worker
  prompt: "step one"
repeat 6 as i:
  session: worker
    prompt: "work {i} with {notes}"
    retry: 2
    simulate: "crash, ok"
session: worker
  prompt: "finish"
`;

interface Trial {
  runId: string;
  printed: HivewatchEvent[];
}

/** Runs the flow in a child `hivewatch run`, SIGKILLs it after `killAfter` printed events. */
function runAndKill(flow: string, db: string, killAfter: number): Promise<Trial> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', flow, '--json', '--virtual-clock', '--db', db], { stdio: ['ignore', 'pipe', 'inherit'] });
    const printed: HivewatchEvent[] = [];
    let killed = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (killed) return;
      printed.push(JSON.parse(line) as HivewatchEvent);
      if (printed.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('close', () => resolve({ runId: printed[0]?.runId ?? '', printed }));
  });
}

/**
 * Eight seeded kill points, one in each eighth of the flow's printed events (about 60: from the
 * first step to the end), one test each, so each deadline covers one trial's work. Spread by
 * band rather than drawn at random over the whole range, eight reach as far into every part of
 * the run as twenty random ones did; CI's fault step (`bin/faults.js --only run,serve`) adds its
 * own twenty timed kills of `hivewatch run` with real agents. A trial starts `hivewatch run` and
 * `resume` and about sixteen fake agents, and agents run ten nice steps below their host on
 * purpose (spawner-child.js): beside two busy loops a fake agent took 2-4 s instead of 0.3 s and
 * a trial up to 43 s. Each failure names its trial and kill point.
 */
const random = seededRandom(20261122);
const FIRST_KILL = 4;
const LAST_KILL = 54;
const TRIALS = 8;
const BAND = (LAST_KILL - FIRST_KILL) / TRIALS;
const KILL_POINTS = Array.from({ length: TRIALS }, (_, band) => FIRST_KILL + Math.floor((band + random()) * BAND));
const TRIAL_DEADLINE_MS = 120_000;

describe('crash recovery: kill -9 of a running `hivewatch run` loses no committed event, keeps the database intact, marks the run interrupted, and resume completes it', () => {
  let dir = '';
  let flow = '';
  beforeAll(() => {
    dir = tempDir('hw-crash-');
    flow = join(dir, 'flow.prose');
    writeFileSync(flow, FLOW);
  });

  for (const [trial, killAfter] of KILL_POINTS.entries()) {
    it(`trial ${trial}: kill -9 after ${killAfter} printed events`, { timeout: TRIAL_DEADLINE_MS }, () => runTrial(trial, killAfter));
  }

  async function runTrial(trial: number, killAfter: number): Promise<void> {
    const db = join(dir, `trial-${trial}.db`);
    const { runId, printed } = await runAndKill(flow, db, killAfter);
    expect(runId).not.toBe('');

    const raw = new Database(db);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();

    // A step's events are durable before the next step starts: every event up to the last
    // stepFinished before the last printed stepStarted must be in the journal.
    const lastStart = printed.map((e) => e.type).lastIndexOf('stepStarted');
    const committedThrough =
      printed
        .slice(0, Math.max(0, lastStart))
        .filter((e) => e.type === 'stepFinished')
        .at(-1)?.seq ?? 0;

    const store = await openHostStore({ path: db });
    const journal = await store.getEvents(runId);
    expect(journal.map((e) => e.seq)).toEqual(journal.map((_, i) => i + 1));
    expect(journal.length).toBeGreaterThanOrEqual(committedThrough);
    for (const event of printed.slice(0, committedThrough)) {
      expect(journal[event.seq - 1]).toEqual(event);
    }
    const run = (await store.getRun(runId))?.run;
    const finished = journal.some((e) => e.type === 'runCompleted');
    expect(run?.status).toBe(finished ? 'completed' : 'interrupted');
    if (!finished) expect(journal.at(-1)?.type).toBe('runInterrupted');
    await store.close();

    if (!finished) {
      const resumed = spawnSync(process.execPath, [BIN, 'resume', runId, '--json', '--virtual-clock', '--db', db], { encoding: 'utf8' });
      expect(resumed.status).toBe(0);
      const events = resumed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as HivewatchEvent);
      expect(events[0]).toMatchObject({ type: 'runStarted', resumedFrom: runId });
      expect(events.at(-1)?.type).toBe('runCompleted');
      const check = await openHostStore({ path: db });
      expect((await check.replayRun(runId)).ok).toBe(true);
      expect((await check.replayRun(events[0]?.runId as string)).ok).toBe(true);
      await check.close();
    }
  }
});

describe('crash recovery: the fake runtime’s agents', () => {
  it('are journaled as attempt processes, so the next start ends them after kill -9 of their host', async () => {
    const dir = tempDir('hw-crash-fake-');
    const flow = join(dir, 'flow.prose');
    const db = join(dir, 'runs.db');
    const token = randomUUID();
    const prompts = [0, 1, 2].map((i) => `hold ${token} ${i}`);
    writeFileSync(flow, `parallel:\n${prompts.map((p) => `  session "${p}"\n    agent: fake\n    simulate: "slow:60s"\n`).join('')}`);
    const child = spawn(process.execPath, [BIN, 'run', flow, '--json', '--virtual-clock', '--db', db], { stdio: ['ignore', 'pipe', 'inherit'] });
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const printed: HivewatchEvent[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => printed.push(JSON.parse(line) as HivewatchEvent));
    const running = (): number[] => prompts.flatMap((p) => groupLeadersWithEnvironment(`HIVEWATCH_FAKE_PROMPT=${p}`) ?? []).map((f) => f.pid);
    try {
      // The three fake agents, found by their prompts in /proc (real subprocesses in groups of their
      // own), once their processes are on record.
      const agents = await vi.waitFor(
        () =>
          running().length === 3 && printed.filter((e) => e.type === 'attemptProcess').length === 3
            ? running()
            : waiting('three fake agents running and journaled'),
        { timeout: 20_000 },
      );
      child.kill('SIGKILL');
      await closed;
      expect(agents.filter((pgid) => groupAlive(pgid))).toHaveLength(3);

      // The next start of any command recovers the run and ends what it left running.
      const next = spawnSync(process.execPath, [BIN, 'runs', '--db', db], { encoding: 'utf8' });
      expect(next.status).toBe(0);
      // SIGKILL is sent when `runs` exits; the kernel ends the processes after it (on a loaded
      // machine, not at once), so the test waits for that, not for a time.
      await expect.poll(() => agents.filter((pgid) => groupAlive(pgid)), { message: 'the SIGKILLed agents to be gone', timeout: 20_000 }).toEqual([]);
      const store = await openHostStore({ path: db });
      const interrupted = (await store.getEvents(printed[0]?.runId ?? '', 0, 1_000)).find((e) => e.type === 'runInterrupted');
      await store.close();
      const processes = interrupted?.type === 'runInterrupted' ? (interrupted.processes ?? []) : [];
      expect(processes.map((p) => [p.pgid, p.outcome]).sort()).toEqual(agents.map((pgid) => [pgid, 'ended']).sort());
      // Ended through their journaled start (pid and start time), not found by environment alone.
      for (const p of processes) expect(p.message).not.toContain('HIVEWATCH_RUN_ID');
    } finally {
      child.kill('SIGKILL');
      for (const pgid of running()) signalGroupId(pgid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
