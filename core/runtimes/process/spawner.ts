import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { processStartTime } from './process-identity.js';
import { inheritedEnv } from '../secrets/secrets.js';

/**
 * How an attempt's process is started: through the spawner (spawner-child.js), a small Node
 * process that forks agents so this one does not. Node's spawn() forks the caller and blocks it
 * until the child has exec()'d; from `serve` with a large heap under load that was ~20 ms of a
 * blocked event loop per agent, and it dominated starting runs through the API
 * (docs/semantics.md "Agent processes"). Where the spawner cannot run (no IPC, Windows)
 * the process is spawned directly, as before.
 *
 * Either way the caller gets an AgentProcess: the same events a ChildProcess gives, the output
 * as chunks, and the group id once known. Signals never go through the spawner: the caller
 * signals the process group itself (process-kill.ts), so a stuck spawner cannot stop a kill.
 */

export interface StartFailure {
  code: string;
  message: string;
}

export interface AgentProcessEvents {
  /** Started: the pid, which is also the group id (the child leads its own group), and its start time. */
  spawn: [pid: number, startTime: string | null];
  /** Could not be started (ENOENT, EACCES, E2BIG…), or the spawner could not be. */
  error: [failure: StartFailure];
  output: [stream: 'stdout' | 'stderr', chunk: Buffer];
  exit: [code: number | null, signal: string | null];
  /** Exited and both pipes closed. */
  close: [code: number | null, signal: string | null];
  /** The spawner died while the process ran: its output and exit status are unknowable. */
  lost: [];
}

export class AgentProcess extends EventEmitter<AgentProcessEvents> {
  pid: number | undefined;

  constructor(private readonly stopReading: () => void) {
    super();
  }

  /** Stops reading the pipes: something outside the group holds them open (process.ts). */
  releaseOutput(): void {
    this.stopReading();
  }
}

export interface SpawnRequest {
  command: string;
  args: readonly string[];
  cwd: string | undefined;
  env: Record<string, string | undefined>;
}

const SPAWNER_PATH = fileURLToPath(new URL('./spawner-child.js', import.meta.url));

type SpawnerMessage =
  | { t: 'spawned'; id: number; pid: number; startTime: string | null }
  | { t: 'error'; id: number; code: string; message: string }
  | { t: 'out'; id: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { t: 'exit' | 'close'; id: number; code: number | null; signal: string | null };

const definedEnv = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));

/** One spawner process, started on first use and again after it died; idle, it keeps no host alive. */
class Spawner {
  private child: ChildProcess | null = null;
  private readonly active = new Map<number, AgentProcess>();
  private nextId = 1;

  start(request: SpawnRequest): AgentProcess {
    const child = this.child ?? this.launch();
    const id = this.nextId++;
    const agent = new AgentProcess(() => child.connected && child.send({ t: 'release', id }));
    this.active.set(id, agent);
    this.child?.channel?.ref();
    child.send({ t: 'spawn', id, command: request.command, args: request.args, cwd: request.cwd, env: definedEnv(request.env) });
    return agent;
  }

  private launch(): ChildProcess {
    const child = spawn(process.execPath, [SPAWNER_PATH], {
      // Plain Node under Electron too; none of the host's flags (a test runner's loaders,
      // --inspect) and none of its database password: it needs neither.
      env: { ...definedEnv(inheritedEnv()), ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
      // Its own group: a Ctrl-C meant for the host's terminal must not end it mid-attempt.
      detached: true,
    });
    child.unref();
    child.channel?.unref();
    child.on('message', (message: SpawnerMessage) => this.receive(message));
    child.on('error', () => this.lose(child));
    child.on('exit', () => this.lose(child));
    this.child = child;
    return child;
  }

  private receive(message: SpawnerMessage): void {
    const agent = this.active.get(message.id);
    if (!agent) return;
    switch (message.t) {
      case 'spawned':
        agent.pid = message.pid;
        agent.emit('spawn', message.pid, message.startTime);
        return;
      case 'out':
        agent.emit('output', message.stream, Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
        return;
      case 'exit':
        agent.emit('exit', message.code, message.signal);
        return;
      case 'error':
        this.finish(message.id);
        agent.emit('error', { code: message.code, message: message.message });
        return;
      case 'close':
        this.finish(message.id);
        agent.emit('close', message.code, message.signal);
        return;
    }
  }

  private finish(id: number): void {
    this.active.delete(id);
    if (this.active.size === 0) this.child?.channel?.unref();
  }

  /** The spawner is gone: what it was starting failed, what it had started is lost. */
  private lose(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = null;
    const orphans = [...this.active.values()];
    this.active.clear();
    for (const agent of orphans) {
      if (agent.pid === undefined) agent.emit('error', { code: 'ESPAWNER', message: 'the spawner process ended before the agent could be started' });
      else agent.emit('lost');
    }
  }
}

/** Node's own ChildProcess in the same shape: the fallback where the spawner cannot run. */
function spawnDirectly(request: SpawnRequest): AgentProcess {
  let child: ChildProcess | null = null;
  const agent = new AgentProcess(() => {
    child?.stdout?.destroy();
    child?.stderr?.destroy();
  });
  try {
    child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, windowsHide: true });
  } catch (error) {
    const failure = { code: (error as { code?: string }).code ?? 'EUNKNOWN', message: error instanceof Error ? error.message : String(error) };
    queueMicrotask(() => agent.emit('error', failure));
    return agent;
  }
  const started = child;
  agent.pid = started.pid;
  // Read at once, as the spawner does: the child cannot have been reaped before this returns.
  const startTime = started.pid === undefined ? null : processStartTime(started.pid);
  started.stdout?.on('data', (chunk: Buffer) => agent.emit('output', 'stdout', chunk));
  started.stderr?.on('data', (chunk: Buffer) => agent.emit('output', 'stderr', chunk));
  started.on('spawn', () => started.pid !== undefined && agent.emit('spawn', started.pid, startTime));
  started.on('error', (error: NodeJS.ErrnoException) => {
    // Emitted for a failed spawn (no pid) and, rarely, a failed kill; only the first matters.
    if (started.pid !== undefined) return;
    started.stdout?.destroy();
    started.stderr?.destroy();
    agent.emit('error', { code: error.code ?? 'EUNKNOWN', message: error.message });
  });
  started.on('exit', (code, signal) => agent.emit('exit', code, signal));
  started.on('close', () => agent.emit('close', started.exitCode, started.signalCode));
  return agent;
}

let spawner: Spawner | null = null;

/** Starts one attempt's process in its own process group; listen for its events synchronously. */
export function startAgentProcess(request: SpawnRequest, via: 'spawner' | 'direct' = 'spawner'): AgentProcess {
  if (via === 'direct' || process.platform === 'win32') return spawnDirectly(request);
  spawner ??= new Spawner();
  try {
    return spawner.start(request);
  } catch {
    // The spawner could not even be launched (no IPC here): start the process directly.
    return spawnDirectly(request);
  }
}
