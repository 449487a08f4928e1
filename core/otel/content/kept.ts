import type { Attributes, AttributeValue } from '../receive/decode.js';
import { AI_SDK, CLAUDE_CODE, CODEX_CLI, COMMON, GENAI, OPENINFERENCE, OPENLLMETRY, type Scheme } from './allow-list.js';

/**
 * The attributes of a record that reach the journal (docs/otel.md "Content: what is kept"): those
 * the allow-list of the record's schemes names, and nothing else. The names of the others are
 * kept in `hivewatch.not_stored` (their values never), so the operator sees that something was
 * sent and not stored. The user's prompt text of a CLI is kept only when the operator turned
 * `otel.store_prompts` on; message content of any scheme never is.
 */

/** The attribute listing what was dropped. */
export const NOT_STORED_KEY = 'hivewatch.not_stored';
/** What a CLI's prompt attribute reads while prompt storage is off. */
export const PROMPT_NOT_STORED = '<not stored: set otel.store_prompts to on>';
/** At most this many dropped names are listed (the rest counted), each at most this long. */
const MAX_NOT_STORED = 40;
const MAX_NAME_CHARS = 120;

/** Who sent a record: the CLIs by their event names or service, any other sender by the SDK schemes. */
export type Sender = 'claude-code' | 'codex-cli' | 'sdk';

const SCHEMES: Record<Sender, readonly Scheme[]> = {
  // Claude Code's and Codex's spans carry the GenAI attributes as well.
  'claude-code': [COMMON, CLAUDE_CODE, GENAI],
  'codex-cli': [COMMON, CODEX_CLI, GENAI],
  // An SDK's spans mix schemes (Traceloop's processor writes `gen_ai.*` beside the AI SDK's `ai.*`).
  sdk: [COMMON, GENAI, AI_SDK, OPENINFERENCE, OPENLLMETRY],
};

interface Compiled {
  keys: Set<string>;
  numericFamilies: string[];
  promptKeys: Set<string>;
}

const compiled = new Map<Sender, Compiled>(
  (Object.keys(SCHEMES) as Sender[]).map((sender) => {
    const schemes = SCHEMES[sender];
    return [
      sender,
      {
        keys: new Set(schemes.flatMap((s) => s.keys)),
        numericFamilies: schemes.flatMap((s) => s.numericFamilies ?? []),
        promptKeys: new Set(schemes.flatMap((s) => s.promptKeys ?? [])),
      },
    ];
  }),
);

/** The sender of a record, from its (qualified) event name and its resource's service name. */
export function senderOf(eventName: string, serviceName: string): Sender {
  if (eventName.startsWith('claude_code.') || serviceName.startsWith('claude')) return 'claude-code';
  if (eventName.startsWith('codex.') || serviceName.startsWith('codex')) return 'codex-cli';
  return 'sdk';
}

/** A dropped attribute's name as listed: index segments folded (`gen_ai.prompt.*.content`), bounded. */
function listedName(key: string): string {
  const folded = key.replace(/(^|\.)\d+(?=\.|$)/g, '$1*');
  return folded.length <= MAX_NAME_CHARS ? folded : `${folded.slice(0, MAX_NAME_CHARS)}…`;
}

function allowed(rules: Compiled, key: string, value: AttributeValue): boolean {
  if (rules.keys.has(key)) return true;
  return typeof value === 'number' && rules.numericFamilies.some((family) => key.startsWith(family));
}

/** The attributes of a record as journaled: the allow-list's, the prompt as the setting says, the other names listed. */
export function keptAttributes(attributes: Attributes, sender: Sender, storePrompts: boolean): Record<string, unknown> {
  const rules = compiled.get(sender) as Compiled;
  const kept: Record<string, unknown> = {};
  const dropped = new Set<string>();
  for (const key of Object.keys(attributes)) {
    const value = attributes[key] as AttributeValue;
    if (rules.promptKeys.has(key)) kept[key] = storePrompts ? value : PROMPT_NOT_STORED;
    else if (allowed(rules, key, value)) kept[key] = value;
    else dropped.add(listedName(key));
  }
  if (dropped.size === 0) return kept;
  const names = [...dropped].sort();
  const listed = names.length <= MAX_NOT_STORED ? names : [...names.slice(0, MAX_NOT_STORED), `+${names.length - MAX_NOT_STORED} more`];
  return { ...kept, [NOT_STORED_KEY]: listed };
}
