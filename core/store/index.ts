/**
 * core/store: the SQLite journal of every event, the projections and error rollups derived from
 * it, the queries the product reads, start-up recovery, replay parity and pruning.
 */
export { openStore, isPostgresUrl, printableLocation } from './open.js';
export { openSqliteStore } from './sqlite/store.js';
export type { SqliteStore } from './sqlite/types.js';
export type { HivewatchStore } from './contract.js';
export { defaultDatabasePath, openDatabase } from './sqlite/database.js';
export { DEFAULT_READ_WORKERS, readWorkersOf } from './sqlite/read-workers.js';
export { createDurableSink, DEFAULT_BACKGROUND_RETRY_MS } from './sink/sink.js';
export type { DurableSink } from './sink/sink.js';
export { MIGRATIONS } from './migrations/index.js';
export { SCHEMA_VERSION, migrate, schemaVersion } from './sqlite/migrate.js';
export { StoreError, isStoreError } from './store-error.js';
export type {
  RunRow,
  StepRow,
  TaskRow,
  AttemptRow,
} from './projection/schema.js';
export { endingErrorOf } from './projection/ending.js';
export { endingSummary } from './projection/ending-words.js';
export type { RunDetail, RunSort } from './queries/runs.js';
export type { LineageRun, RunLineage } from './queries/lineage.js';
export type {
  ErrorCount,
  ErrorSeriesQuery,
  ErrorSeries,
  ListErrorsQuery,
  ErrorOccurrence,
} from './queries/errors.js';
export type { ErrorGroup } from './queries/groups.js';
export { HANDLED_KEY, UNHANDLED_KEY } from './queries/errors.js';
export type { FailureCounts } from './queries/failures.js';
export type { RecoveredRun } from './hosts/recovery.js';
export { RunCommandKind } from './queries/commands.js';
export type { RunCommand } from './queries/commands.js';
export type { CostSplitQuery } from './outcomes/cost-split.js';
