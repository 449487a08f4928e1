/**
 * Secrets never leave the process that needs them (issue #25 part 5). An agent's `env:` values
 * are given to its process and to nothing else: every text Hivewatch stores or shows that could
 * hold one (an error message, a stdout/stderr tail, an output, the journaled flow text, a channel
 * value) has each occurrence replaced by `[env NAME]`, where the text is made.
 *
 * What counts as a secret (docs/decisions.md, "Secrets in texts"):
 * - every value of a flow's `env:` of 6 characters or more (shorter ones are everyday words);
 * - every value of a secret-named variable of a flow's `env:`, whatever its length;
 * - in the environment a child inherits from Hivewatch, the values (6+ characters) of
 *   secret-named variables (ANTHROPIC_API_KEY, GITHUB_TOKEN, PGPASSWORD, …);
 * - the password of a URL held by any of those variables (postgres://user:pw@host/db).
 * Each is also matched in its JSON-escaped form, as an agent's JSON output would carry it.
 */

const MIN_SECRET_CHARS = 6;

/** Names that say "secret": *_KEY, *_TOKEN, *_SECRET, *PASSWORD, *_PASSPHRASE, *_CREDENTIALS, … */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)$|PASSWORD|SECRET/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The redaction marker: names the variable, never the value or anything derived from it. */
export function secretMarker(name: string): string {
  return `[env ${name}]`;
}

/** A marker already in a text is left alone, so redacting twice changes nothing. */
const MARKER_SOURCE = String.raw`\[env [A-Za-z_][A-Za-z0-9_]*\]`;

/** The passwords in a URL, as written: `scheme://user:password@host…` and `?password=…`. */
export function urlPasswords(value: string): string[] {
  const found: string[] = [];
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(value.trim())?.[1];
  const colon = userinfo?.indexOf(':') ?? -1;
  if (userinfo !== undefined && colon >= 0 && colon < userinfo.length - 1) found.push(userinfo.slice(colon + 1));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) {
    for (const match of value.matchAll(/[?&]password=([^&#]+)/gi)) found.push(match[1] as string);
  }
  return found;
}

export type SecretSource = 'flow' | 'host';

/** The secrets of one environment: `flow` for an agent's `env:`, `host` for what a child inherits. */
export function secretsOf(env: Readonly<Record<string, string | undefined>>, source: SecretSource): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    const named = isSecretName(name);
    const longEnough = value.length >= MIN_SECRET_CHARS;
    if (source === 'flow' ? named || longEnough : named && longEnough) secrets.set(value, name);
    for (const password of urlPasswords(value)) if (source === 'flow' || password.length >= MIN_SECRET_CHARS) secrets.set(password, name);
  }
  return secrets;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces secrets in texts and in every string of a JSON-like value. Immutable once built. */
export class Redactor {
  private readonly names = new Map<string, string>();
  private readonly pattern: RegExp | null;

  constructor(...sources: ReadonlyMap<string, string>[]) {
    for (const secrets of sources) {
      for (const [value, name] of secrets) {
        this.names.set(value, name);
        const escaped = JSON.stringify(value).slice(1, -1);
        if (escaped !== value) this.names.set(escaped, name);
      }
    }
    const values = [...this.names.keys()].sort((a, b) => b.length - a.length);
    // One pass, longest first; an existing marker matches first and is kept as it is.
    this.pattern = values.length === 0 ? null : new RegExp(`${MARKER_SOURCE}|${values.map(escapeRegExp).join('|')}`, 'g');
  }

  static none(): Redactor {
    return new Redactor();
  }

  /** The secrets of a flow's agents (their `env:`). */
  static ofFlowEnv(envs: Iterable<Readonly<Record<string, string>>>): Redactor {
    return new Redactor(...[...envs].map((env) => secretsOf(env, 'flow')));
  }

  /** What an agent's process is given: its `env:` and Hivewatch's own environment. */
  static forChild(agentEnv: Readonly<Record<string, string>>, hostEnv: Readonly<Record<string, string | undefined>> = process.env): Redactor {
    return new Redactor(secretsOf(agentEnv, 'flow'), secretsOf(hostEnv, 'host'));
  }

  get empty(): boolean {
    return this.pattern === null;
  }

  text(text: string): string {
    if (this.pattern === null || text === '') return text;
    return text.replace(this.pattern, (found) => {
      const name = this.names.get(found);
      return name === undefined ? found : secretMarker(name);
    });
  }

  /** Every string inside `value` (objects, arrays), redacted; other values as they are. */
  deep<T>(value: T): T {
    if (this.pattern === null) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = this.walk(item);
    return out;
  }
}

/**
 * The environment a child inherits, without what it must not have: the database's password
 * (`PGPASSWORD`, a `HIVEWATCH_DB` URL carrying one). No agent needs Hivewatch's own database.
 */
export function inheritedEnv(hostEnv: Readonly<Record<string, string | undefined>> = process.env): Record<string, string | undefined> {
  const env = { ...hostEnv };
  delete env.PGPASSWORD;
  if (env.HIVEWATCH_DB !== undefined && urlPasswords(env.HIVEWATCH_DB).length > 0) delete env.HIVEWATCH_DB;
  return env;
}
