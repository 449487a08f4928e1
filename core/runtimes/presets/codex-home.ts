import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { isRecord, parseJson } from '../../base/json.js';
import { commandOf, isToolRefusal, type DeniedTool } from '../../base/errors/tool-refusal.js';

/**
 * What the codex-cli preset reads from the Codex home of the CLI it starts (`$CODEX_HOME`, else
 * `~/.codex`): the model provider its config.toml selects (so the preset can turn that
 * provider's own retries off), and the session's rollout file (the only place `codex exec`
 * 0.169.0 records which command its approval policy refused). Measured against the real CLI:
 * docs/presets.md "codex-cli".
 */

/** Providers built into Codex: a user setting for them is ignored (built-ins win when Codex merges its config). */
const BUILT_IN_PROVIDERS = new Set(['openai', 'oss', 'ollama', 'lmstudio']);

/** The Codex home the CLI will use, given the environment it gets. */
export function codexHomeOf(env: Readonly<Record<string, string | undefined>>): string {
  const home = env.CODEX_HOME;
  if (home !== undefined && home !== '') return home;
  return join(env.HOME ?? homedir(), '.codex');
}

/**
 * The model provider config.toml selects, read with a TOML parser (any quoting TOML allows:
 * `model_provider = 'stub'` too): the active profile's `model_provider` (`profile = "p"` and
 * `[profiles.p]`, which Codex lets override the top level), else the top-level one; null when
 * it names none, or the file is missing or not valid TOML (Codex itself refuses to start then).
 */
export function configuredProvider(codexHome: string): string | null {
  const file = join(codexHome, 'config.toml');
  if (!existsSync(file)) return null;
  let config: Record<string, unknown>;
  try {
    config = parseToml(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  const profiles = isRecord(config.profiles) ? config.profiles : {};
  const profile = typeof config.profile === 'string' && isRecord(profiles[config.profile]) ? (profiles[config.profile] as Record<string, unknown>) : {};
  const provider = profile.model_provider ?? config.model_provider;
  return typeof provider === 'string' && provider !== '' ? provider : null;
}

/** A provider id a `-c model_providers.<id>.…` key can name: Codex splits the key on dots, with no quoting. */
const OVERRIDABLE_ID = /^[A-Za-z0-9_-]+$/;

/**
 * `-c` overrides that turn off Codex's own request and stream retries for `provider`, so the
 * engine is the one retry owner. None for a built-in provider (Codex ignores them there), when
 * the config selects none (the built-in `openai`), or for an id a dotted key cannot name
 * (`hivewatch check` warns about a codex-cli session that retries either way).
 */
export function providerRetryOverrides(provider: string | null): string[] {
  if (provider === null || BUILT_IN_PROVIDERS.has(provider) || !OVERRIDABLE_ID.test(provider)) return [];
  return ['-c', `model_providers.${provider}.request_max_retries=0`, '-c', `model_providers.${provider}.stream_max_retries=0`];
}

/** Codex's words for a command its approval policy refused (the tool's output the model is sent; the one classifier's). */
export function isApprovalRefusal(text: string): boolean {
  return isToolRefusal(text);
}

/** The rollout file of a thread: `sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`. */
function rolloutFile(codexHome: string, threadId: string): string | null {
  const suffix = `-${threadId}.jsonl`;
  const walk = (dir: string, depth: number): string | null => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return null;
    }
    // Newest first: the thread was just started.
    for (const entry of entries.sort((a, b) => b.name.localeCompare(a.name))) {
      if (entry.isFile() && entry.name.endsWith(suffix)) return join(dir, entry.name);
      if (entry.isDirectory() && depth > 0) {
        const found = walk(join(dir, entry.name), depth - 1);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(join(codexHome, 'sessions'), 3);
}

/** The tool calls of a thread whose output says the approval policy refused them, with the command asked for. */
export function refusedCommands(codexHome: string, threadId: string): DeniedTool[] {
  const file = rolloutFile(codexHome, threadId);
  if (file === null) return [];
  const calls = new Map<string, DeniedTool>();
  const refused: DeniedTool[] = [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  for (const line of text.split('\n')) {
    const parsed = parseJson(line);
    if (!parsed.ok || !isRecord(parsed.value) || !isRecord(parsed.value.payload)) continue;
    const p = parsed.value.payload;
    if (p.type === 'function_call' && typeof p.call_id === 'string' && typeof p.name === 'string') {
      calls.set(p.call_id, { tool: p.name, detail: typeof p.arguments === 'string' ? commandOf(p.name, p.arguments) : null, toolUseId: p.call_id });
    } else if (p.type === 'function_call_output' && typeof p.call_id === 'string' && typeof p.output === 'string' && isApprovalRefusal(p.output)) {
      refused.push(calls.get(p.call_id) ?? { tool: 'shell', detail: null });
    }
  }
  return refused;
}
