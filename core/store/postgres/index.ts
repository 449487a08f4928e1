/** The PostgreSQL engine of the store (issue #13): `openPostgresStore` and its connection helpers. */
export { openPostgresStore, type OpenPostgresStoreOptions } from './store.js';
export { isPostgresUrl, postgresConfig, redactUrl, type PostgresConfig, type PostgresEnv } from './connection.js';
export { migratePostgres, POSTGRES_SCHEMA_VERSION } from './migrations.js';
