import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A stand-in for an agent CLI that a preset can be pointed at: an executable named `claude` or
 * `codex` (a preset's `command:` names the CLI's executable, so the stand-in carries its name)
 * that runs `script` (its text, or an existing file) with this Node. The script sees the preset's
 * arguments in `process.argv` from index 2 on, exactly as the real CLI would.
 */
export function writeCliStandIn(dir: string, cli: 'claude' | 'codex', script: string | { path: string }, name = 'stand-in'): string {
  const folder = join(dir, `${name}-${cli}`);
  mkdirSync(folder, { recursive: true });
  const scriptPath = typeof script === 'string' ? join(folder, 'script.cjs') : script.path;
  if (typeof script === 'string') writeFileSync(scriptPath, script);
  const executable = join(folder, cli);
  writeFileSync(executable, `#!/bin/sh\nexec '${process.execPath.replace(/'/g, `'\\''`)}' '${scriptPath.replace(/'/g, `'\\''`)}' "$@"\n`);
  chmodSync(executable, 0o755);
  return executable;
}

/** A `claude -p --output-format json` stand-in whose result is its own argv (after the executable), as JSON. */
export const CLAUDE_ARGV_ECHO = `process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: JSON.stringify(process.argv.slice(2)) }));`;

/** A `codex exec --json` stand-in whose agent message is its own argv (after the executable), as JSON. */
export const CODEX_ARGV_ECHO = `console.log(JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text: JSON.stringify(process.argv.slice(2)) } }));
console.log(JSON.stringify({ type: 'turn.completed' }));`;
