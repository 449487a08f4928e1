// The spawner: a small long-lived Node process that starts agent processes on behalf of its
// parent (core/runtimes/process/spawner.ts). Why it exists: Node's spawn() forks the calling process and
// waits until the child has exec()'d. Called from a host with a large heap (`serve` under load),
// that fork copies the host's page tables and blocks its event loop for each agent, ~20 ms
// apiece on a busy 2-core machine; here the fork copies a heap of a few MB and blocks nobody's
// requests. Plain JavaScript and self-contained on purpose, like fake-agent.js: it is run
// directly by `process.execPath` from core/ in tests and from dist/core/ after a build.
//
// Protocol (IPC, advanced serialization so output travels as bytes, one message at a time):
//   parent → here: { t: 'spawn', id, command, args, cwd, env }   start a detached process group
//                  { t: 'release', id }                           stop reading its pipes
//   here → parent: { t: 'spawned', id, pid, startTime } | { t: 'error', id, code, message }
//                  { t: 'out', id, stream: 'stdout' | 'stderr', data }
//                  { t: 'exit', id, code, signal } then { t: 'close', id, code, signal }
// Signals are not relayed: the parent signals the process group itself (kill(-pid, sig)).
// When the parent goes away (exit or crash) the channel disconnects and this process exits;
// the agents it started are left exactly as a dead host leaves them: start-up recovery finds
// and ends them (core/store/leftover-processes.ts).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Agents are background work: they run ten steps nicer than the host (at most 19). On Linux with
 * autogroup scheduling (the desktop default) a process's nice only orders it within its session,
 * and every agent leads a session of its own (it is started detached, for its process group), so
 * each agent was a group as heavy as the host's whole session: eight busy agents on two cores
 * made every journal round trip and API answer of the host wait behind them (500 starts through
 * `serve` on PostgreSQL 10.4-13.9 s; with the agents' groups at nice 10, 1.6-1.9 s;
 * docs/decisions/0011-http-limits-and-serve-under-load.md). So both are set: this process's nice, which each agent inherits at
 * the fork (what counts without autogroup), and each agent's group's nice, written to
 * /proc/<pid>/autogroup once it started. An idle core still runs agents at full speed; nice only
 * orders who waits. Where either cannot be set, agents keep what the host has.
 */
const AGENT_NICE_STEPS = 10;
const MAX_NICE = 19;

function nicer(nice) {
  return Math.min(MAX_NICE, nice + AGENT_NICE_STEPS);
}

try {
  setPriority(nicer(getPriority()));
} catch {
  // Not permitted or not supported: agents run at the host's priority.
}

/**
 * The nice of the host's scheduling group ("/autogroup-123 nice 0"), null without autogroup. An
 * empty file means the host never left the root group (a session started by init or a daemon
 * without setsid, as a CI runner may be): the root group's tasks weigh as nice 0 beside each
 * agent's group, so the agents' groups still go ten steps nicer than that.
 */
function hostGroupNice() {
  try {
    const match = /nice (-?\d+)/.exec(readFileSync(`/proc/${process.ppid}/autogroup`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return null;
  }
}

const HOST_GROUP_NICE = hostGroupNice();

function makeGroupNicer(pid) {
  if (HOST_GROUP_NICE === null) return;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nicer(HOST_GROUP_NICE)));
  } catch {
    // Gone already, or not permitted: it runs at its group's default.
  }
}

/** Messages not yet written to the parent past which the children's pipes are paused. */
const MAX_UNSENT = 64;

const children = new Map();
let unsent = 0;

function send(message) {
  if (!process.connected) return;
  unsent += 1;
  process.send(message, undefined, undefined, () => {
    unsent -= 1;
    if (unsent === MAX_UNSENT / 2) for (const child of children.values()) resumeOutput(child);
  });
  if (unsent >= MAX_UNSENT) for (const child of children.values()) pauseOutput(child);
}

function pauseOutput(child) {
  child.stdout?.pause();
  child.stderr?.pause();
}

function resumeOutput(child) {
  child.stdout?.resume();
  child.stderr?.resume();
}

/**
 * Field 22 of /proc/<pid>/stat (what core/runtimes/process/process-group.ts reads), taken here right
 * after the spawn, while the child cannot have been reaped yet; null where /proc is not there.
 */
function startTimeOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function errorMessage(id, error) {
  const code = typeof error?.code === 'string' ? error.code : 'EUNKNOWN';
  return { t: 'error', id, code, message: error instanceof Error ? error.message : String(error) };
}

function start(request) {
  const { id } = request;
  let child;
  try {
    child = spawn(request.command, request.args, {
      cwd: request.cwd ?? undefined,
      env: request.env,
      // stdin is /dev/null: an agent CLI that reads stdin when it is not a TTY sees EOF, not a hang.
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a kill reaches whatever it starts.
      detached: true,
      windowsHide: true,
    });
  } catch (error) {
    // Synchronous failures: invalid arguments such as a NUL byte in argv.
    send(errorMessage(id, error));
    return;
  }
  if (child.pid === undefined) {
    // The spawn failed asynchronously (ENOENT, EACCES…): 'error' follows, then 'close'.
    child.on('error', (error) => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      send(errorMessage(id, error));
    });
    return;
  }
  children.set(id, child);
  makeGroupNicer(child.pid);
  // After a successful spawn, 'error' only means a failed kill, which the parent does itself.
  child.on('error', () => undefined);
  send({ t: 'spawned', id, pid: child.pid, startTime: startTimeOf(child.pid) });
  child.stdout.on('data', (data) => send({ t: 'out', id, stream: 'stdout', data }));
  child.stderr.on('data', (data) => send({ t: 'out', id, stream: 'stderr', data }));
  if (unsent >= MAX_UNSENT) pauseOutput(child);
  child.on('exit', (code, signal) => send({ t: 'exit', id, code, signal }));
  child.on('close', (code, signal) => {
    children.delete(id);
    send({ t: 'close', id, code, signal });
  });
}

function release(id) {
  const child = children.get(id);
  if (!child) return;
  // Something outside the group holds the pipes open: stop reading them, which closes them here.
  child.stdout?.destroy();
  child.stderr?.destroy();
}

process.on('message', (message) => {
  if (message?.t === 'spawn') start(message);
  else if (message?.t === 'release') release(message.id);
});
// The parent is gone: nothing is left to report to.
process.on('disconnect', () => process.exit(0));
