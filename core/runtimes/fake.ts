import { hostname, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { attemptEnv, exitedByItself, processTrace, type ProcessRuntimeOptions } from './command.js';
import { Redactor } from './secrets/secrets.js';
import { runProcess } from './process/process.js';
import type { AttemptRequest, AttemptResult, SessionRuntime } from './runtime.js';
import { DEFAULT_SIMULATE, readFakeOutput, simulatedOutcome } from './simulated.js';

/**
 * The `fake` runtime: runs fake-agent.js as a real subprocess, one per attempt, playing the
 * session's `simulate:` script. Everything a real agent CLI goes through (spawn, capture, exit
 * codes, signals, timeout, SIGTERM/SIGKILL on cancel) really happens; only the agent is scripted.
 */

const FAKE = 'fake';

/**
 * The script beside this module: core/runtimes/ when tests run the sources, dist/core/runtimes/
 * after a build (tsc copies it there through allowJs).
 */
export const FAKE_AGENT_PATH = fileURLToPath(new URL('./fake-agent.js', import.meta.url));

export interface FakeRuntimeOptions extends ProcessRuntimeOptions {
  /** The interpreter; default process.execPath (Node, or Electron run as Node). */
  execPath?: string | undefined;
  /** Override the script location (tests). */
  scriptPath?: string | undefined;
}

/**
 * The environment the fake agent reads its instructions from, with the attempt's names every
 * subprocess runtime gives (HIVEWATCH_RUN_ID…: start-up recovery finds a child spawned just
 * before its host died by them).
 */
function fakeAgentEnv(request: AttemptRequest): Record<string, string> {
  return {
    ...attemptEnv(request),
    // Electron's binary behaves as plain Node with this set; Node ignores it.
    ELECTRON_RUN_AS_NODE: '1',
    // The host's NODE_OPTIONS (a test runner's loaders, --inspect) must not leak into the fake.
    NODE_OPTIONS: '',
    HIVEWATCH_FAKE_SIMULATE: request.simulate ?? DEFAULT_SIMULATE,
    HIVEWATCH_FAKE_ATTEMPT: String(request.attempt),
    HIVEWATCH_FAKE_PROMPT: request.prompt,
  };
}

export class FakeRuntime implements SessionRuntime {
  readonly name = FAKE;

  constructor(private readonly options: FakeRuntimeOptions = {}) {}

  async execute(request: AttemptRequest, signal: AbortSignal): Promise<AttemptResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    // A bad script is the flow's error; reject it here too, without starting anything.
    const outcome = simulatedOutcome(request);
    if (!outcome.ok) return outcome.result;
    const observation = await runProcess({
      argv: [this.options.execPath ?? process.execPath, this.options.scriptPath ?? FAKE_AGENT_PATH],
      runtimeName: this.name,
      env: fakeAgentEnv(request),
      // The fake touches no files; a temp cwd keeps a `crash` core dump (where enabled) out of the project.
      cwd: request.cwd ?? request.agent.cwd ?? tmpdir(),
      timeoutMs: request.timeoutMs,
      killGraceMs: this.options.killGraceMs,
      maxCaptureBytes: this.options.maxCaptureBytes,
      signal,
      killNow: request.killNow,
      // A real subprocess like any agent's: journaled, so recovery ends it if the host dies first.
      onStarted: (started) => request.reportProcess?.({ kind: 'started', ...started, hostname: hostname() }),
      // It is given the agent's env: like any agent, what it prints is cleared of those secrets as it arrives.
      redactor: Redactor.forChild(request.agent),
    });
    if (observation.outputHeldOpen && observation.pid !== null) request.reportProcess?.({ kind: 'outputHeldOpen', pid: observation.pid });
    if (observation.cancelled && !exitedByItself(observation)) return { kind: 'cancelled' };
    // Spawn failures and timeouts too go through the fake's reader, which keeps errors deterministic.
    const result = readFakeOutput(observation, request.agent.name);
    return result.kind === 'cancelled' ? result : { ...result, process: processTrace(observation) };
  }
}
