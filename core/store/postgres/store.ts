import type { HivewatchStore } from '../contract.js';
import type { EndLeftovers } from '../hosts/recovery.js';
import type { HeartbeatScheduler } from '../hosts/host-lease.js';
import { newInstance, releaseInstance } from '../hosts/hosts.js';
import { StoreError } from '../store-error.js';
import { Availability } from './connection/availability.js';
import {
  connectionError,
  createPostgresClient,
  createPostgresPool,
  isServerAway,
  postgresConfig,
  redactUrl,
  type PostgresEnv,
} from './connection/connection.js';
import { assertUnderstood, migratePostgres, postgresSchemaVersion } from './migrate.js';
import { PostgresStore } from './postgres-store.js';

export interface OpenPostgresStoreOptions {
  /** `postgres://user:password@host:port/database?sslmode=…` (see connection.ts). */
  url: string;
  /** Where PG* variables are read for what the URL leaves out. Default process.env. */
  env?: PostgresEnv;
  /** The clock of the store's own events (recovery), prune's cutoff and the host lease. */
  now?: () => number;
  /** Reads only: no migration, no recovery, no lease, and the server refuses writes too. */
  readonly?: boolean;
  /** Run start-up recovery on open (default true unless readonly). */
  recover?: boolean;
  /** Where a subscriber's or watcher's exception goes (default: rethrown on a microtask). */
  onListenerError?: (error: unknown) => void;
  /** Operator notes (text search without trigram indexes, a LISTEN connection lost). Default console.warn. */
  log?: (message: string) => void;
  /** How long this host counts as alive after its last heartbeat (host-lease.ts). */
  leaseMs?: number;
  /** The heartbeat's timer (tests inject one). */
  heartbeatScheduler?: HeartbeatScheduler;
  poolSize?: number;
  /** Process control for start-up recovery and later ones (recovery.ts `EndLeftovers`); without it none is done. */
  endLeftovers?: EndLeftovers;
}

const defaultListenerError = (error: unknown): void =>
  queueMicrotask(() => {
    throw error;
  });

/** Opens the store on a PostgreSQL database: migrates it (once across hosts), takes this host's lease, recovers dead hosts' runs. */
export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<HivewatchStore & { whenListening(): Promise<void> }> {
  const config = postgresConfig(options.url, options.env ?? process.env);
  const readonly = options.readonly ?? false;
  const location = redactUrl(options.url);
  const log = options.log ?? ((message: string) => console.warn(message));
  const availability = new Availability(location, log);
  const pool = createPostgresPool(config, {
    readonly,
    // An idle connection the server dropped: an outage (said once), or something else worth a line.
    onIdleError: (error) => (isServerAway(error) ? availability.lost(error) : log(`PostgreSQL connection at ${location}: ${error.message}`)),
    ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
  });
  pool.on('connect', () => availability.connected());
  const owner = newInstance();
  try {
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      throw connectionError(options.url, error, config.password);
    }
    if (readonly) {
      const version = await postgresSchemaVersion(pool);
      assertUnderstood(version);
      if (version === 0) throw new StoreError('invalid_argument', `${location} has no Hivewatch schema, and it is open read-only`);
    } else {
      const migrated = await migratePostgres(pool, options.now ?? Date.now);
      for (const note of migrated.notes) log(`${location}: ${note}`);
    }
    const store = new PostgresStore(
      pool,
      location,
      readonly,
      owner,
      options.now ?? Date.now,
      options.onListenerError ?? defaultListenerError,
      log,
      () => createPostgresClient(config),
      {
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        ...(options.heartbeatScheduler !== undefined ? { scheduler: options.heartbeatScheduler } : {}),
      },
      availability,
    );
    try {
      await store.start(options.recover ?? true, options.endLeftovers);
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  } catch (error) {
    releaseInstance(owner);
    await pool.end().catch(() => undefined);
    throw error;
  }
}
