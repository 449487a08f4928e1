import { classifyObservation } from '../errors/classify.js';
import { HivewatchError } from '../errors/hivewatch-error.js';
import type { AgentSpec } from '../flow/plan.js';
import { CommandLineError, commandValues, shellScriptFromTemplate, splitCommandTemplate, templateHasRefs } from './command-line.js';
import { agentConfigError } from './command.js';
import type { AttemptResult } from './runtime.js';

/**
 * What the agent-CLI presets (claude-code, codex-cli) share: how an agent's `command:` may
 * override the built-in command line, and how an error the tool reported becomes a structured one.
 */

/**
 * argv for a preset. Without `command:` the tool is run from PATH. A `command:` without `{...}`
 * names the executable and any leading arguments (`"/opt/bin/claude"`, `"npx @openai/codex"`)
 * and the preset appends its own arguments. A `command:` that uses `{prompt}` is the whole
 * command line (the preset then only reads the output), run like the command runtime runs it.
 */
export function presetArgv(agent: AgentSpec, prompt: string, executable: readonly string[], presetArgs: readonly string[]): string[] | AttemptResult {
  if (agent.command === null) return [...executable, ...presetArgs];
  const values = commandValues(prompt, agent.model);
  try {
    if (templateHasRefs(agent.command)) {
      return agent.shell ? ['/bin/sh', '-c', shellScriptFromTemplate(agent.command, values)] : splitCommandTemplate(agent.command, values);
    }
    const prefix = splitCommandTemplate(agent.command, values);
    return prefix.length === 0 ? [...executable, ...presetArgs] : [...prefix, ...presetArgs];
  } catch (error) {
    if (error instanceof CommandLineError) return agentConfigError(agent, error.message);
    throw error;
  }
}

/**
 * A positional prompt starting with `-` would be read as an option; `--` ends the options so it
 * cannot be (both tools' argument parsers honour it). Used only then, to keep the usual form.
 */
export function positional(prompt: string): string[] {
  return prompt.startsWith('-') ? ['--', prompt] : [prompt];
}

/**
 * Whether a message is a rate limit, by the classifier's own pattern (asked through a synthetic
 * failed observation) so the presets and the classifier can never disagree about what one is.
 */
export function mentionsRateLimit(text: string): boolean {
  const probe = classifyObservation({ runtimeName: 'probe', exitCode: 1, signal: null, timedOut: false, stdout: '', stderr: text, durationMs: 0 });
  return probe?.code === 'RUNTIME_RATE_LIMIT';
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 200);
}

/** An error the tool itself reported (a JSON error result or event): rate limit, or an unknown runtime failure. */
export function reportedError(runtimeName: string, text: string, context: Record<string, unknown>): HivewatchError {
  const origin = `runtime:${runtimeName}`;
  const detail = firstLine(text) || 'no details given';
  if (mentionsRateLimit(text)) {
    return new HivewatchError('RUNTIME_RATE_LIMIT', { message: `runtime ${runtimeName} was rate limited: ${detail}`, origin, context });
  }
  return new HivewatchError('RUNTIME_UNKNOWN', { message: `runtime ${runtimeName} reported an error: ${detail}`, origin, context });
}
