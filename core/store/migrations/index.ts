import type { Migration } from './migration.js';
import { migration as v01 } from './v01-v09/v01-first-schema.js';
import { migration as v02 } from './v01-v09/v02-rollup-grains-groups-and-owners.js';
import { migration as v03 } from './v01-v09/v03-checkpoint-deltas.js';
import { migration as v04 } from './v01-v09/v04-wall-clock-handled-trends-indexes-settings.js';
import { migration as v05 } from './v01-v09/v05-commit-order-and-commands.js';
import { migration as v06 } from './v01-v09/v06-retry-of-index.js';
import { migration as v07 } from './v01-v09/v07-run-counts-and-text-index.js';
import { migration as v08 } from './v01-v09/v08-otel-ingest.js';
import { migration as v09 } from './v01-v09/v09-task-text-and-postgres-baseline.js';
import { migration as v10 } from './v10-v19/v10-failure-model.js';
import { migration as v11 } from './v10-v19/v11-host-leases.js';
import { migration as v12 } from './v10-v19/v12-bytewise-collation.js';
import { migration as v13 } from './v10-v19/v13-external-prompt-state.js';
import { migration as v14 } from './v10-v19/v14-issue-log.js';
import { migration as v15 } from './v10-v19/v15-alert-tables.js';
import { migration as v16 } from './v10-v19/v16-usage-rollups.js';
import { migration as v17 } from './v10-v19/v17-usage-limit-waits.js';
import { migration as v18 } from './v10-v19/v18-error-group-facts.js';
import { migration as v19 } from './v10-v19/v19-runs-at-scale.js';
import { migration as v20 } from './v20-v29/v20-group-counts.js';
import { migration as v21 } from './v20-v29/v21-run-outcomes-and-cost.js';
import { migration as v22 } from './v20-v29/v22-issue-failure-rollups.js';
import { migration as v23 } from './v20-v29/v23-label-facts.js';
import { migration as v24 } from './v20-v29/v24-agent-spawns.js';
import { migration as v25 } from './v20-v29/v25-approval-waits.js';
import { migration as v26 } from './v20-v29/v26-alert-channels.js';
import { migration as v27 } from './v20-v29/v27-attempt-telemetry.js';
import { migration as v28 } from './v20-v29/v28-rollup-keys-carry-counts.js';
import { migration as v29 } from './v20-v29/v29-open-rows-indexed.js';

/**
 * Every schema version, in order. Imported one by one, never found by a scan of this folder: the
 * app runs from dist/ and from Electron's asar, where the folder is not there to read. A new
 * version is a new file here and one line at the end of this list.
 */
export const MIGRATIONS: readonly Migration[] = [
  v01,
  v02,
  v03,
  v04,
  v05,
  v06,
  v07,
  v08,
  v09,
  v10,
  v11,
  v12,
  v13,
  v14,
  v15,
  v16,
  v17,
  v18,
  v19,
  v20,
  v21,
  v22,
  v23,
  v24,
  v25,
  v26,
  v27,
  v28,
  v29,
];
