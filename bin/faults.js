#!/usr/bin/env node
// `npm run faults [-- --quick] [--trials N] [--seed N] [--only KINDS]`: kill -9 trials. For seeded
// random moments it SIGKILLs `hivewatch run` (N trials) and `hivewatch serve` with a run started
// through its API (N trials), both running a command agent that ignores SIGTERM, then checks:
// PRAGMA integrity_check is ok; every event printed before the kill (run: the --json lines;
// serve: the /api/stream events) is in the journal as printed; after start-up recovery the run
// is `interrupted` (or completed, when the kill came after its end); none of its agent processes
// is left; `hivewatch resume` completes. Loopback only; each trial is bounded in time and ends
// whatever it started. Needs dist/ and dist-dev/ (`npm run faults` builds both). Then, unless --quick, the
// PostgreSQL outage trials (bin/faults-pg.js). `--only` takes a comma-separated list of run, serve
// and pg: `--only pg` for the outages alone, `--only run,serve` for the kill -9 trials without them.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { pgOutageTrials } from './faults-pg.js';
import { check, httpJson, killQuietly, openStream } from './faults-support.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const BIN = join(root, 'bin', 'hivewatch.js');
const TRIAL_LIMIT_MS = 30_000;
/** The agent's work per session; the flow has three, so a run lasts about 1.2 s. */
const AGENT_SECONDS = 0.4;
const KILL_WINDOW_MS = 1_200;

function usage(message) {
  console.error(`${message}\nusage: npm run faults -- [--quick] [--trials N] [--seed N] [--only run,serve,pg]`);
  process.exit(2);
}

/** The flags, through node:util parseArgs like every command; mistakes keep this script's words. */
function parse(argv) {
  const options = { trials: 20, seed: 20261123, only: null, quick: false };
  const spec = { quick: { type: 'boolean' }, only: { type: 'string' }, trials: { type: 'string' }, seed: { type: 'string' } };
  const { tokens } = parseArgs({ args: argv, options: spec, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option' || !(token.name in spec) || !token.rawName.startsWith('--')) usage(`unknown option ${argv[token.index]}`);
    if (token.name === 'quick') {
      options.trials = 3;
      options.quick = true;
    } else if (token.name === 'only') {
      const kinds = (token.value ?? '').split(',');
      if (kinds.some((kind) => kind !== 'run' && kind !== 'serve' && kind !== 'pg')) usage('--only needs run, serve or pg, or a comma-separated list of them');
      options.only = kinds;
    } else {
      if (!/^\d+$/.test(token.value ?? '')) usage(`--${token.name} needs a whole number`);
      options[token.name] = Number(token.value);
    }
  }
  return options;
}

const FLOW = `agent stubborn:
  runtime: "command"
  command: "/bin/sh AGENT"
  retry: 0
let a = session: stubborn
  prompt: "one"
let b = session: stubborn
  prompt: "two {a}"
let c = session: stubborn
  prompt: "three {b}"
`;

/**
 * Ignores SIGTERM (so does its child), records its own pid and its child's, works a while. Once
 * its host is killed the harness creates `linger`: an orphaned agent then runs on until
 * something ends it, so the check that recovery ended it cannot pass by the agent finishing.
 */
function agentScript(pidsFile, linger) {
  return [
    "trap '' TERM",
    `echo $$ >> ${pidsFile}`,
    `sleep ${AGENT_SECONDS} &`,
    `echo $! >> ${pidsFile}`,
    'wait',
    `while [ -e ${linger} ]; do sleep 0.05; done`,
    'echo "done $HIVEWATCH_TASK_ID"',
    '',
  ].join('\n');
}

function setUp(kind, index) {
  const dir = mkdtempSync(join(tmpdir(), `hw-faults-${kind}-${index}-`));
  const pids = join(dir, 'agent.pids');
  const linger = join(dir, 'linger');
  writeFileSync(join(dir, 'agent.sh'), agentScript(pids, linger));
  const flows = join(dir, 'flows');
  mkdirSync(flows);
  writeFileSync(join(flows, 'agent.prose'), FLOW.replace('AGENT', join(dir, 'agent.sh')));
  return { dir, db: join(dir, 'hivewatch.db'), pids, linger, flow: join(flows, 'agent.prose') };
}

function agentPids(pidsFile) {
  if (!existsSync(pidsFile)) return [];
  return readFileSync(pidsFile, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** Runs: kill(0) finds it and /proc does not show a zombie (which only waits to be reaped). */
function running(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** SIGKILL is delivered asynchronously: give the processes a bounded moment to go. */
async function survivors(pids, withinMs = 2_000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = pids.filter(running);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `hivewatch run --json`, SIGKILLed `delayMs` after its first line. */
function killRun(setup, delayMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', setup.flow, '--json', '--db', setup.db], { cwd: setup.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const printed = [];
    let stderr = '';
    let timer = null;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    createInterface({ input: child.stdout }).on('line', (line) => {
      printed.push(JSON.parse(line));
      if (timer === null) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (printed.length === 0) reject(new Error(`hivewatch run printed nothing (exit ${code ?? signal}): ${stderr.trim()}`));
      else resolve({ runId: printed[0].runId, printed, killed: signal === 'SIGKILL', pid: child.pid });
    });
  });
}

/** `hivewatch serve`, a run started through POST /api/runs, SIGKILLed `delayMs` after the start. */
function killServe(setup, delayMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', setup.db], { cwd: setup.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const printed = [];
    let stream = null;
    let runId = null;
    let timer = null;
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const api = /Bearer ([^"]+)" (http:\/\/127\.0\.0\.1:\d+)\/api\/runs/.exec(line);
      if (!api || stream) return;
      const [, token, origin] = api;
      stream = openStream(origin, token, printed);
      httpJson(origin, token, 'POST', '/api/runs', { flow: 'user/agent.prose' }).then(
        (started) => {
          runId = started.runId;
          timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
        },
        (error) => {
          child.kill('SIGKILL');
          reject(error);
        },
      );
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      stream?.destroy();
      if (runId === null) reject(new Error(`hivewatch serve ended before a run started (exit ${code ?? signal}): ${stderr.trim()}`));
      else resolve({ runId, printed: printed.filter((e) => e.runId === runId), killed: signal === 'SIGKILL', pid: child.pid });
    });
  });
}

/** The checks after a kill; throws what failed. Returns a short description of the trial. */
async function afterKill(setup, outcome, openStore) {
  writeFileSync(setup.linger, '');
  const raw = new Database(setup.db, { readonly: true });
  try {
    check(raw.pragma('integrity_check', { simple: true }) === 'ok', 'PRAGMA integrity_check is not ok');
  } finally {
    raw.close();
  }

  const store = await openStore({ path: setup.db });
  let status;
  let ended = 0;
  let groups = [];
  try {
    const journal = await store.getEvents(outcome.runId, 0, 100_000);
    for (const event of outcome.printed) {
      const stored = journal[event.seq - 1];
      check(
        stored !== undefined && JSON.stringify(stored) === JSON.stringify(event),
        `printed event ${event.seq} (${event.type}) is not in the journal as printed`,
      );
    }
    status = (await store.getRunRow(outcome.runId))?.status;
    const completed = journal.some((e) => e.type === 'runCompleted');
    check(status === (completed ? 'completed' : 'interrupted'), `the run is ${status} after recovery, expected ${completed ? 'completed' : 'interrupted'}`);
    groups = store.recovered.flatMap((r) => r.processes);
    ended = groups.filter((p) => p.outcome === 'ended').length;
  } finally {
    await store.close();
  }

  const left = await survivors(agentPids(setup.pids));
  check(
    left.length === 0,
    `agent processes left after recovery: ${left.join(', ')} (recovery: ${groups.map((g) => `${g.pgid} ${g.outcome}`).join('; ') || 'no group journaled'})`,
  );
  rmSync(setup.linger, { force: true });
  if (status === 'completed') return { status, ended, printed: outcome.printed.length };

  const resumed = spawnSync(process.execPath, [BIN, 'resume', outcome.runId, '--json', '--db', setup.db], {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: TRIAL_LIMIT_MS,
  });
  check(resumed.status === 0, `hivewatch resume exited ${resumed.status ?? resumed.signal}: ${resumed.stderr.trim()}`);
  const last = resumed.stdout.trim().split('\n').at(-1);
  check(last !== undefined && JSON.parse(last).type === 'runCompleted', 'hivewatch resume did not complete the run');
  const afterResume = await survivors(agentPids(setup.pids));
  check(afterResume.length === 0, `agent processes left after resume: ${afterResume.join(', ')}`);
  return { status, ended, printed: outcome.printed.length };
}

async function trial(kind, index, delayMs, openStore) {
  const setup = setUp(kind, index);
  let hostPid = null;
  let watchdog = null;
  try {
    const limit = new Promise((_, reject) => {
      watchdog = setTimeout(() => reject(new Error(`trial took longer than ${TRIAL_LIMIT_MS} ms`)), TRIAL_LIMIT_MS);
    });
    const run = async () => {
      const outcome = kind === 'run' ? await killRun(setup, delayMs) : await killServe(setup, delayMs);
      hostPid = outcome.pid;
      return afterKill(setup, outcome, openStore);
    };
    return await Promise.race([run(), limit]);
  } finally {
    clearTimeout(watchdog);
    if (hostPid !== null) killQuietly(hostPid);
    rmSync(setup.linger, { force: true });
    // The groups too: an agent's loop starts children its pid file does not list.
    for (const pid of agentPids(setup.pids)) {
      killQuietly(-pid);
      killQuietly(pid);
    }
    rmSync(setup.dir, { recursive: true, force: true });
  }
}

async function main() {
  const options = parse(process.argv.slice(2));
  // The harness's own parts (seeded randomness, the store it reads) from dist-dev/; the processes it kills run dist/.
  // The next start opens the store as every host does (with process control: its recovery ends the killed host's agents).
  const entry = join(root, 'dist-dev', 'core', 'service', 'history', 'open.js');
  if (!existsSync(entry)) usage('dist-dev/ is missing: run `npm run build:dev` (npm run faults does)');
  const { openHostStore: openStore } = await import(entry);
  const { seededRandom } = await import(join(root, 'dist-dev', 'core', 'testing', 'seeded-random.js'));
  const random = seededRandom(options.seed);
  const started = Date.now();
  const figures = {};
  const killKinds = ['run', 'serve'].filter((kind) => options.only === null || options.only.includes(kind));
  for (const kind of killKinds) {
    const tally = { trials: 0, failures: 0, interrupted: 0, completed: 0, agentsEnded: 0 };
    figures[kind] = tally;
    for (let i = 0; i < options.trials; i++) {
      const delayMs = Math.floor(random() * KILL_WINDOW_MS);
      tally.trials++;
      try {
        const result = await trial(kind, i, delayMs, openStore);
        tally[result.status]++;
        tally.agentsEnded += result.ended;
        console.log(
          `${kind} #${i + 1}: kill -9 after ${delayMs} ms: ok (${result.printed} events printed, ${result.status}, ${result.ended} agent group(s) ended by recovery)`,
        );
      } catch (error) {
        tally.failures++;
        console.log(`${kind} #${i + 1}: kill -9 after ${delayMs} ms: FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  // The PostgreSQL outages last 2, 10 and 30 s of real time: not in --quick (npm test has their quick forms).
  const outages =
    options.only?.includes('pg') || (options.only === null && !options.quick) ? await pgOutageTrials({ root, bin: BIN, kinds: ['run', 'serve'] }) : null;
  const wall = ((Date.now() - started) / 1000).toFixed(1);
  for (const [kind, t] of Object.entries(figures)) {
    console.log(
      `faults: kill -9 of ${kind}: ${t.trials} trials, ${t.failures} failures (${t.interrupted} interrupted and resumed, ${t.completed} completed before the kill; ${t.agentsEnded} agent groups ended by recovery)`,
    );
  }
  for (const [kind, t] of Object.entries(outages ?? {})) {
    console.log(
      `faults: PostgreSQL outages of ${kind}: ${t.trials} trials, ${t.failures} failures (${t.completed} completed, ${t.failed} failed as SYSTEM_EVENT_WRITE_FAILED and resumed)`,
    );
  }
  console.log(`faults: seed ${options.seed}, wall time ${wall} s`);
  process.exit([...Object.values(figures), ...Object.values(outages ?? {})].some((t) => t.failures > 0) ? 1 : 0);
}

await main();
