import type { AttemptResult, ProcessTrace } from '../../runtimes/runtime.js';
import { Redactor, type SecretHolder } from '../../runtimes/secrets/secrets.js';
import type { AttemptEndTrace } from '../../base/events.js';

/**
 * What the journal keeps of an attempt for the operator's inspector: what it
 * was asked (the rendered prompt, or a command runtime's argv) and what it answered (the agent's
 * output, the process's exit and the tails of stdout / stderr).
 *
 * Every piece is bounded, so a journal grows by a few KiB per attempt whatever an agent prints
 * (a runtime keeps 1 MiB per stream in memory; the journal keeps far less of it). The agent's
 * environment is never journaled; the agent's secrets (core/runtimes/secrets/secret-names.ts) that show
 * up in any journaled text (a token pasted into a command line, echoed by a tool) are replaced
 * by `[secret NAME]`.
 */

/** The rendered prompt: its beginning is kept (instructions come first). */
export const JOURNAL_PROMPT_CHARS = 16_000;
/** Each argument of a command line (the `{prompt}` argument is the long one). */
export const JOURNAL_ARG_CHARS = 4_000;
/** The whole command line: the same budget as a prompt (JOURNAL_PROMPT_CHARS), its own name for its own limit. */
export const JOURNAL_ARGV_CHARS = 16_000;
/** The agent's output, kept from its beginning (an answer reads from the top). */
export const JOURNAL_OUTPUT_CHARS = 8_000;
/** stdout and stderr, each: their end is kept (where the error usually is). */
export const JOURNAL_TAIL_CHARS = 4_000;

export function keepHead(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters not journaled …]`;
}

export function keepTail(text: string, max: number): string {
  if (text.length <= max) return text;
  return `[… ${text.length - max} earlier characters not journaled …]\n${text.slice(text.length - max)}`;
}

/**
 * Replaces every secret of the agent by its marker, before a text is cut to its bound so that
 * no part of a secret survives at a cut.
 */
export function redactSecrets(text: string, agent: SecretHolder): string {
  return Redactor.ofAgents([agent]).text(text);
}

/** The `attemptStarted` fields: argv for a runtime that runs a command line, else the prompt. */
export function startTrace(prompt: string, argv: readonly string[] | null, agent: SecretHolder): { prompt: string } | { argv: string[] } {
  const secrets = Redactor.ofAgents([agent]);
  if (argv === null) return { prompt: keepHead(secrets.text(prompt), JOURNAL_PROMPT_CHARS) };
  const kept: string[] = [];
  let total = 0;
  for (const arg of argv) {
    const text = keepHead(secrets.text(arg), JOURNAL_ARG_CHARS);
    if (total + text.length > JOURNAL_ARGV_CHARS) {
      kept.push(`[… ${argv.length - kept.length} more arguments not journaled …]`);
      break;
    }
    kept.push(text);
    total += text.length;
  }
  return { argv: kept };
}

/** The trace an attempt's end carries, or null when the runtime reported neither output nor a process. */
export function endTrace(result: AttemptResult, agent: SecretHolder): AttemptEndTrace | null {
  const output = result.kind === 'succeeded' ? result.output : null;
  const process: ProcessTrace | undefined = result.kind === 'cancelled' ? undefined : result.process;
  if (output === null && !process) return null;
  const secrets = Redactor.ofAgents([agent]);
  return {
    ...(output !== null ? { output: keepHead(secrets.text(output), JOURNAL_OUTPUT_CHARS) } : {}),
    exitCode: process?.exitCode ?? null,
    signal: process?.signal ?? null,
    stdoutTail: process ? keepTail(secrets.text(process.stdout), JOURNAL_TAIL_CHARS) : '',
    stderrTail: process ? keepTail(secrets.text(process.stderr), JOURNAL_TAIL_CHARS) : '',
  };
}
