import type { Clock } from '../base/clock.js';
import type { TelemetryTarget } from './presets/telemetry-env.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import type { AgentSpec, RuntimeKind } from '../flow/plan/plan.js';
import { ClaudeCodeRuntime } from './presets/claude-code.js';
import { CodexCliRuntime } from './presets/codex-cli.js';
import { CommandRuntime } from './command.js';
import { FakeRuntime } from './fake.js';
import { NoopRuntime } from './noop.js';
import type { AttemptResult, RuntimeRegistry, SessionRuntime } from './runtime.js';

/**
 * One instance per runtime kind, shared by every run of the process: runtimes hold no per-run
 * state, so there is nothing to create per agent or per attempt.
 */

export interface RuntimeRegistryOptions {
  /** The clock of in-process waits (noop's `slow:`) and of the presets' reset times; subprocesses run in real time. */
  clock?: Clock | undefined;
  /** SIGTERM → SIGKILL grace for subprocess runtimes (default 2000 ms). */
  killGraceMs?: number | undefined;
  /** Where the claude-code / codex-cli presets send their CLIs' telemetry. */
  telemetry?: (() => TelemetryTarget | null) | undefined;
}

export interface HivewatchRuntimeRegistry extends RuntimeRegistry {
  /** The runtime of a kind, for callers that have a kind rather than an agent. */
  byKind(kind: RuntimeKind): SessionRuntime;
}

/**
 * Stands in for a kind no runtime exists for (data from an older or newer version): the
 * attempt fails as the user's configuration error instead of the engine throwing.
 */
class UnknownRuntime implements SessionRuntime {
  constructor(readonly name: string) {}

  execute(request: { agent: AgentSpec }): Promise<AttemptResult> {
    const error = new HivewatchError('USER_INVALID_CONFIG', {
      message: `agent "${request.agent.name}" names runtime "${this.name}", which this version does not have`,
      origin: 'user',
      context: { agent: request.agent.name, runtime: this.name },
    });
    return Promise.resolve({ kind: 'failed', error });
  }
}

export function createRuntimeRegistry(options: RuntimeRegistryOptions = {}): HivewatchRuntimeRegistry {
  const processOptions = { killGraceMs: options.killGraceMs };
  // The presets read "try again in 2 hours" against the engine's clock, so the reset time and
  // the retry delay computed from it agree, on a virtual clock too.
  const clock = options.clock;
  const presetOptions = { now: clock === undefined ? undefined : () => clock.now(), telemetry: options.telemetry };
  const runtimes: Record<RuntimeKind, SessionRuntime> = {
    command: new CommandRuntime(processOptions),
    fake: new FakeRuntime(processOptions),
    'claude-code': new ClaudeCodeRuntime({ ...presetOptions, ...processOptions }),
    'codex-cli': new CodexCliRuntime({ ...presetOptions, ...processOptions }),
    noop: new NoopRuntime({ clock: options.clock }),
  };
  const byKind = (kind: RuntimeKind): SessionRuntime =>
    Object.prototype.hasOwnProperty.call(runtimes, kind) ? runtimes[kind] : new UnknownRuntime(String(kind));
  return {
    byKind,
    forAgent: (agent: AgentSpec) => byKind(agent.runtime),
  };
}
