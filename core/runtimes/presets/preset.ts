import { classifyObservation } from '../../base/errors/classify.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { AgentSpec } from '../../flow/plan/plan.js';
import { CommandLineError, commandValues, shellScriptFromTemplate, splitCommandTemplate } from '../command-line.js';
import { agentConfigError, unsafeCommand } from '../command.js';
import type { AttemptResult } from '../runtime.js';
import { knownProviderFailure } from '../../base/errors/provider-failure.js';
import { firstLine } from '../../base/errors/text.js';
import { toolRefusalError, type DeniedTool } from '../../base/errors/tool-refusal.js';
import type { ResetClock } from '../../base/errors/usage-limit.js';

/**
 * What the agent-CLI presets (claude-code, codex-cli) share: how an agent's `command:` may
 * override the built-in command line, and how an error the tool reported becomes a structured one.
 */

/**
 * argv for a preset. Without `command:` the tool is run from PATH. A `command:` names the
 * executable (`"/opt/bin/claude"`), and the preset appends its own arguments, the prompt last
 * after `--`. With `shell: true` the `command:` is the whole `/bin/sh` script instead, which
 * passes the prompt on from the environment (`claude <flags> -- "$HIVEWATCH_PROMPT"`); the preset
 * then only reads the output. Anything else is refused before it starts (`unsafeCommand`).
 */
export function presetArgv(agent: AgentSpec, prompt: string, executable: readonly string[], presetArgs: readonly string[]): string[] | AttemptResult {
  if (agent.command === null) return [...executable, ...presetArgs];
  const unsafe = unsafeCommand(agent);
  if (unsafe) return unsafe;
  try {
    if (agent.shell) return ['/bin/sh', '-c', shellScriptFromTemplate(agent.command)];
    const prefix = splitCommandTemplate(agent.command, commandValues(prompt, agent.model));
    return prefix.length === 0 ? [...executable, ...presetArgs] : [...prefix, ...presetArgs];
  } catch (error) {
    if (error instanceof CommandLineError) return agentConfigError(agent, error.message);
    throw error;
  }
}

/**
 * The prompt as the last arguments of a CLI: after `--`, so that nothing it holds is read as an
 * option (`--settings=…` would configure hooks that run commands) or as a subcommand (Codex's
 * `codex exec help`, `resume`, `review` run those, not a prompt). Both CLIs take every argument
 * after `--` as the prompt (docs/presets.md, checked against the pinned CLIs).
 */
export function positional(prompt: string): string[] {
  return ['--', prompt];
}

/**
 * Whether a message is a rate limit, by the classifier's own pattern (asked through a synthetic
 * failed observation) so the presets and the classifier can never disagree about what one is.
 */
export function mentionsRateLimit(text: string): boolean {
  const probe = classifyObservation({ runtimeName: 'probe', exitCode: 1, signal: null, timedOut: false, stdout: '', stderr: text, durationMs: 0 });
  return probe?.code === 'RUNTIME_RATE_LIMIT';
}

/** The first non-blank line of a tool's message, trimmed to 200 characters (for error messages). */
// Words of a CLI that cannot authenticate (Claude Code: "Invalid API key · Please run /login";
// the API's authentication_error) or that rejected its own command line (commander's "unknown
// option", clap's "unexpected argument"). Retrying either repeats the same failure.
const NOT_SIGNED_IN =
  /invalid api key|please run \/login|not logged in|authentication_error|invalid x-api-key|oauth token has expired|\b401\b\s*(?:unauthori[sz]ed|\{)|status[\s:=]*401\b|unauthori[sz]ed/i;
const BAD_ARGUMENTS = /unknown option|unexpected argument|invalid value for|too many arguments|error: (?:option|argument) '[^']*'/i;

/** The user's error a CLI's words report (not signed in, a bad command line), or null. */
function userErrorFromText(runtimeName: string, text: string, context: Record<string, unknown>): HivewatchError | null {
  const detail = firstLine(text) || 'no details given';
  if (NOT_SIGNED_IN.test(text)) {
    return new HivewatchError('USER_INVALID_CONFIG', {
      message: `runtime ${runtimeName} is not signed in or its API key was refused: ${detail}`,
      origin: 'user',
      recoveryHint: `Sign in to ${runtimeName} (or set its API key) on this machine, then retry`,
      context: { ...context, runtime: runtimeName },
    });
  }
  if (BAD_ARGUMENTS.test(text)) {
    return new HivewatchError('USER_INVALID_CONFIG', {
      message: `runtime ${runtimeName} rejected its command line: ${detail}`,
      origin: 'user',
      recoveryHint: "Fix the agent's command: or model: for this CLI version",
      context: { ...context, runtime: runtimeName },
    });
  }
  return null;
}

/**
 * The cause a CLI's words (or the API status it reported) state: a provider failure the one
 * classifier knows (provider-failure.ts: usage and rate limits, sign-in, refusals, timeouts, the
 * provider's server errors, an untrusted directory), else a command line the CLI rejected; null
 * when they state none.
 */
export function statedError(
  runtimeName: string,
  text: string,
  context: Record<string, unknown>,
  clock: ResetClock = {},
  status: number | null = null,
): HivewatchError | null {
  return knownProviderFailure({ runtime: runtimeName, status, message: text, context, clock }) ?? userErrorFromText(runtimeName, text, context);
}

/**
 * An error the tool itself reported (a JSON error result or event): the cause it states, or an
 * unknown runtime failure.
 */
export function reportedError(runtimeName: string, text: string, context: Record<string, unknown>, clock: ResetClock = {}): HivewatchError {
  const known = statedError(runtimeName, text, context, clock);
  if (known) return known;
  const detail = firstLine(text) || 'no details given';
  return new HivewatchError('RUNTIME_UNKNOWN', { message: `runtime ${runtimeName} reported an error: ${detail}`, origin: `runtime:${runtimeName}`, context });
}

export type { DeniedTool } from '../../base/errors/tool-refusal.js';

/**
 * Denied permissions are not success: the agent tried to do something it was not allowed to,
 * so its result is not the work that was asked for. Fatal to the attempt (agent category, not
 * recoverable): the same prompt under the same permissions is denied again. The one classifier's
 * code for a refusal (provider-failure.ts), as the ingest gives it to the same refusal in telemetry.
 */
export function permissionDenied(runtimeName: string, agentName: string, denied: readonly DeniedTool[], context: Record<string, unknown>): HivewatchError {
  return toolRefusalError({ runtime: runtimeName, agent: agentName, denied, context });
}

/**
 * Who retries a failed API request inside one attempt (aos-p2.5: a single retry owner). The
 * engine owns retries; a preset turns the CLI's own retries off where the CLI allows it
 * (`disabled`), and where it does not, says so (`internal`) so the journal's reader knows one
 * attempt may hide several requests.
 */
export const InnerRetries = { disabled: 'disabled', internal: 'internal' } as const;
export type InnerRetries = (typeof InnerRetries)[keyof typeof InnerRetries];

export interface PresetRetryOwnership {
  innerRetries: InnerRetries;
  /** How they are turned off, or why they cannot be (docs/presets.md has the sources). */
  how: string;
}
