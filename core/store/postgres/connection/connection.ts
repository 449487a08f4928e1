import pg from 'pg';
import { StoreError } from '../../store-error.js';
import { isPostgresUrl, redactUrl, REDACTED, splitAuthority } from './url.js';

export { isPostgresUrl, redactUrl };

/**
 * Turning a `postgres://` URL into the pg driver's connection settings.
 *
 * The driver parses connection strings itself, but two of its behaviours do not suit us: it
 * reads the PG* variables from `process.env` only (we take the environment as an argument, so
 * tests and the CLI decide), and it maps `sslmode` differently from libpq (`require` verifies
 * the certificate there). So the URL is parsed here, the PG* variables fill what it leaves
 * out, and `sslmode` follows libpq's meaning (docs/decisions/0025-postgresql-engine.md, "PostgreSQL URLs"). What the
 * URL and the environment both leave out is left to the driver's defaults (host localhost,
 * port 5432, user = the OS user, database = the user, password from ~/.pgpass).
 */

export type PostgresEnv = Readonly<Record<string, string | undefined>>;

const SslMode = {
  disable: 'disable',
  prefer: 'prefer',
  require: 'require',
  verifyCa: 'verify-ca',
  verifyFull: 'verify-full',
} as const;
type SslMode = (typeof SslMode)[keyof typeof SslMode];
const SSL_MODES: readonly string[] = Object.values(SslMode);

export interface PostgresConfig {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  sslmode: SslMode;
  /** What the driver gets: false (plain), or TLS options. */
  ssl: false | { rejectUnauthorized: boolean; checkServerIdentity?: () => undefined };
}

const NO_HOST = 'no-host.invalid';

function invalid(url: string, what: string): StoreError {
  return new StoreError('invalid_argument', `invalid PostgreSQL URL ${redactUrl(url)}: ${what}`);
}

function decode(url: string, part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid(url, `${what} is not valid percent-encoding`);
  }
}

function sslFor(mode: SslMode): PostgresConfig['ssl'] {
  switch (mode) {
    case SslMode.disable:
    case SslMode.prefer:
      // The driver cannot fall back from TLS to plain as libpq's `prefer` does; `prefer` gives
      // no verified protection anyway, so it connects plain (use `require` to encrypt).
      return false;
    case SslMode.require:
      return { rejectUnauthorized: false };
    case SslMode.verifyCa:
      // The chain is verified, the host name is not (libpq's verify-ca).
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case SslMode.verifyFull:
      return { rejectUnauthorized: true };
  }
}

function parsePort(url: string, text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65_535) throw invalid(url, `port "${text}" is not a number from 1 to 65535`);
  return Number(text);
}

/** Connection settings from a URL, with the PG* variables of `env` for what it leaves out. */
export function postgresConfig(url: string, env: PostgresEnv = process.env): PostgresConfig {
  if (!isPostgresUrl(url)) throw invalid(url, 'it must start with postgres:// or postgresql://');
  // Checked before the URL parser, whose error would not say which part is wrong.
  const writtenPort = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(splitAuthority(url)?.hostPort ?? '')?.[1];
  if (writtenPort) parsePort(url, writtenPort);
  let parsed: URL;
  try {
    // A URL with a user but no host (`postgres://ops@/db?host=/socket`) is valid libpq but not
    // WHATWG: parse it with a placeholder host, which then counts as no host.
    parsed = new URL(url.replace(/@(?=[/?#]|$)/, `@${NO_HOST}`));
  } catch {
    throw invalid(url, 'it is not a URL (percent-encode special characters in the user name and password)');
  }
  const params = parsed.searchParams;
  const known = new Set(['sslmode', 'host', 'port', 'user', 'password', 'dbname']);
  for (const key of params.keys()) {
    if (!known.has(key)) throw invalid(url, `unknown parameter "${key}" (known: ${[...known].join(', ')})`);
  }

  const hostPart = parsed.hostname && parsed.hostname !== NO_HOST ? decode(url, parsed.hostname, 'the host') : '';
  const host = params.get('host') || hostPart || env.PGHOST || undefined;
  const portText = params.get('port') || parsed.port || env.PGPORT;
  const user = params.get('user') || (parsed.username ? decode(url, parsed.username, 'the user name') : '') || env.PGUSER || undefined;
  const password = params.get('password') || (parsed.password ? decode(url, parsed.password, 'the password') : '') || env.PGPASSWORD || undefined;
  const path = parsed.pathname.replace(/^\//, '');
  const database = params.get('dbname') || (path ? decode(url, path, 'the database name') : '') || env.PGDATABASE || undefined;
  const modeText = params.get('sslmode') ?? env.PGSSLMODE ?? SslMode.prefer;
  if (!SSL_MODES.includes(modeText)) throw invalid(url, `sslmode "${modeText}" is not one of ${SSL_MODES.join(', ')}`);
  const sslmode = modeText as SslMode;

  const config: PostgresConfig = { sslmode, ssl: sslFor(sslmode) };
  if (host !== undefined) config.host = host;
  if (portText) config.port = parsePort(url, portText);
  if (user !== undefined) config.user = user;
  if (password !== undefined) config.password = password;
  if (database !== undefined) config.database = database;
  return config;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * The type parsers of our pools: BIGINT (counts, ms times, sequence numbers) and NUMERIC
 * (SUM over BIGINT) arrive as JS numbers, as SQLite gives them. Per pool, never the driver's
 * global parsers, so other pg users in the same process keep strings.
 */
const postgresTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

const APPLICATION_NAME = 'hivewatch';

export interface PoolOptions {
  max?: number;
  /** The server refuses writes in every transaction of this pool (a read-only store). */
  readonly?: boolean;
  /** Called with errors of idle clients (a dropped connection); the pool replaces them. */
  onIdleError?: (error: Error) => void;
}

/** A pool for `config`: numbers parsed per pool, `application_name=hivewatch`. */
export function createPostgresPool(config: PostgresConfig, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfig(config),
    ...(options.readonly ? { options: '-c default_transaction_read_only=on' } : {}),
    max: options.max ?? 10,
  });
  // Without a listener an idle client's error (server restart) would crash the process.
  pool.on('error', (error) => options.onIdleError?.(error));
  // A checked-out client's lost connection is also emitted as an event; the query in flight
  // rejects with it, which is where it is handled (asUnavailable), so the event itself is dropped.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

function clientConfig(config: PostgresConfig): pg.ClientConfig {
  const { sslmode: _mode, ...connection } = config;
  return { ...connection, types: postgresTypes, application_name: APPLICATION_NAME };
}

/** A single connection outside any pool (a LISTEN connection must stay ours). */
export function createPostgresClient(config: PostgresConfig): pg.Client {
  return new pg.Client(clientConfig(config));
}

/**
 * A connection error without secrets: the driver's messages name the user and database, never
 * the password, but the URL may be echoed by callers, so it is redacted here once.
 */
export function connectionError(url: string, error: unknown, password?: string): StoreError {
  let message = error instanceof Error ? error.message : String(error);
  if (password) message = message.split(password).join(REDACTED);
  return new StoreError('unavailable', `cannot connect to PostgreSQL at ${redactUrl(url)}: ${message}`, { cause: error });
}

/** SQLSTATE classes of a lost server: connection exceptions (08), shutdown or restart (57P01-57P03). */
const LOST_SQLSTATE = /^(08|57P0[1-3])/;
const LOST_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether an error means the server is away (restarting, unreachable), not that the request was wrong. */
export function isServerAway(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (LOST_SQLSTATE.test(code) || LOST_SOCKET.has(code))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message);
}

/**
 * A lost server as the store's `unavailable` error (the service answers 503; the journal's sink
 * retries it with backoff); any other error unchanged.
 */
export function asUnavailable(error: unknown, location: string): unknown {
  if (!isServerAway(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('unavailable', `the database at ${location} is unavailable: ${message}`, { cause: error });
}
