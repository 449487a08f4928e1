/**
 * Which values are secrets (docs/decisions/0030-secrets-in-texts.md, "Secrets in texts"). A value is a secret because
 * of what the operator wrote about it, never because of what it looks like:
 * - its variable's name says so (`isSecretName`: API_KEY, GITHUB_TOKEN, PGPASSWORD, …);
 * - the flow declares it (`secrets: [NAME]` on the agent);
 * - it is a connection string holding a password (`postgres://user:pw@host/db`): the whole
 *   value and the password alone, whatever the variable's name.
 * An ordinary setting (`MODE=timeout`, `NODE_ENV=production`) is none of these and is never hidden.
 */

/**
 * Words of a name that say "secret". A name is read as words (split at `_`, `-`, `.` and
 * camelCase humps, trailing digits dropped), so `AUTHOR`, `KEYBOARD`, `TOKENIZER_PATH` and
 * `MAX_TOKENS` are not secret-named although they contain `AUTH`, `KEY` or `TOKEN`.
 */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  'KEY',
  'APIKEY',
  'TOKEN',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'PWD',
  'CREDENTIAL',
  'CREDENTIALS',
  'CREDS',
  'AUTH',
  'OAUTH',
  'AUTHORIZATION',
  'BEARER',
]);

/** Words run together (`PGPASSWORD`, `GHTOKEN`, `OPENAIAPIKEY`): only endings no ordinary word has. */
const SECRET_ENDINGS = /(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|APIKEY)$/;

/** The last word of a name that holds where a secret is, not the secret (`SSH_KEY_PATH`). */
const LOCATION_WORDS: ReadonlySet<string> = new Set(['FILE', 'PATH', 'DIR']);

/** The shell's own variables that look secret-named and are not (`PWD` is the working directory). */
const NOT_SECRET: ReadonlySet<string> = new Set(['PWD', 'OLDPWD']);

export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.toUpperCase().replace(/[0-9]+$/, ''))
    .filter((word) => word !== '');
}

export function isSecretName(name: string): boolean {
  if (NOT_SECRET.has(name.toUpperCase())) return false;
  const words = nameWords(name);
  if (words.length === 0 || LOCATION_WORDS.has(words.at(-1) as string)) return false;
  return words.some((word) => SECRET_WORDS.has(word) || SECRET_ENDINGS.test(word));
}

/**
 * Values that switch something on or off: a secret-named variable holding one (`DISABLE_AUTH=1`,
 * `USE_OAUTH=true`) hides nothing, and hiding it would blank every "true" and "1" in every text.
 */
const SWITCH_VALUE = /^(?:true|false|yes|no|on|off|[01])$/i;

export function isSwitchValue(value: string): boolean {
  return SWITCH_VALUE.test(value);
}

/** The passwords in a URL, as written: `scheme://user:password@host…` and `?password=…`. */
export function urlPasswords(value: string): string[] {
  const found: string[] = [];
  const trimmed = value.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return found;
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(trimmed)?.[1];
  const colon = userinfo?.indexOf(':') ?? -1;
  if (userinfo !== undefined && colon >= 0 && colon < userinfo.length - 1) found.push(userinfo.slice(colon + 1));
  for (const match of trimmed.matchAll(/[?&]password=([^&#]+)/gi)) found.push(match[1] as string);
  return found;
}

/** What the redaction needs of an agent: its `env:` and the names its flow declares secret. */
export interface SecretHolder {
  readonly env: Readonly<Record<string, string>>;
  /** Names of `env:` variables the flow declares secret (`secrets: [NAME]`), whatever their names say. */
  readonly secrets?: readonly string[] | undefined;
}

/**
 * Adds a connection string with a password: the whole value, and each password of at least
 * `minPassword` characters on its own (a driver's message may quote the password alone).
 */
function addConnectionString(secrets: Map<string, string>, name: string, value: string, minPassword: number): void {
  const passwords = urlPasswords(value);
  if (passwords.length === 0) return;
  secrets.set(value, name);
  for (const password of passwords) if (password.length >= minPassword) secrets.set(password, name);
}

/** The secrets of an agent's `env:`, value → variable name. */
export function agentSecrets(agent: SecretHolder): Map<string, string> {
  const declared = new Set(agent.secrets ?? []);
  const secrets = new Map<string, string>();
  for (const [name, value] of Object.entries(agent.env)) {
    if (value === '') continue;
    if (declared.has(name) || (isSecretName(name) && !isSwitchValue(value))) secrets.set(value, name);
    addConnectionString(secrets, name, value, 1);
  }
  return secrets;
}

/**
 * Values shorter than this in Hivewatch's own environment are not taken for secrets: nobody
 * declared them, and a short host value (`GH_AUTH=sso`) is more likely a setting than a key.
 */
const MIN_HOST_SECRET_CHARS = 6;

/** The secrets of the environment an agent inherits from Hivewatch: secret-named values and connection strings. */
export function hostSecrets(env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_HOST_SECRET_CHARS) continue;
    if (isSecretName(name) && !isSwitchValue(value)) secrets.set(value, name);
    addConnectionString(secrets, name, value, MIN_HOST_SECRET_CHARS);
  }
  return secrets;
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
