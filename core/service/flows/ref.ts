import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { EXTERNAL_FLOW_PREFIX } from '../../otel/mapping.js';
import { FlowKeys, type FlowFolders } from './keys.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';

/**
 * What an operator may write for "this flow" in an alert rule (`--flow`) and a bulk filter
 * (`--where flow=`), and the one form each resolves to (docs/triage.md "Naming a flow"):
 *
 * - the key a run records (keys.ts): `examples/<file>.prose` or `user/<file>.prose` (the
 *   window's flow id), an absolute path, `external:<agent>` for agent sessions;
 * - a path to the flow file, absolute or relative to the command line's directory: the key a run
 *   started from that file records (a file in the operator's flows folder is `user/<file>.prose`,
 *   whether the window or the command line started it);
 * - the name `hivewatch runs` shows (the file's name without `.prose`): kept as the name, and it
 *   means every flow file of that name, as the Runs list's flow filter does.
 *
 * A value that can never match a run is refused: a path with no file and no run started from it,
 * a name no run has and no flows folder holds. The result is stable: resolving it again gives it
 * back, so the service can check what the command line already resolved.
 */

interface RecordedFlow {
  flow: string;
  flowName: string;
}

export interface FlowRefScope {
  keys: FlowKeys;
  /** Where a relative path is read from: the command line's directory; null for the API (it has none). */
  cwd: string | null;
  /** Every flow some run recorded, with its name (the store's run counts per flow). */
  recorded: () => Promise<readonly RecordedFlow[]>;
}

/** A flow reference that names nothing a run can have: the message says what was looked for. */
export class FlowRefError extends HivewatchError {
  constructor(message: string) {
    super('USER_FLOW_NOT_FOUND', { message });
    this.name = 'FlowRefError';
  }
}

const FORMS = 'give the name `hivewatch runs` shows, the flow file’s path, or its id (examples/<file>.prose, user/<file>.prose)';
const EXTERNAL = /^external:[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_CHARS = 500;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

async function inFolder(keys: FlowKeys, key: string): Promise<boolean> {
  try {
    await keys.resolve(key);
    return true;
  } catch {
    return false;
  }
}

/** A path rather than a name: a name is a file's name without folders and without `.prose`. */
function looksLikePath(value: string): boolean {
  return isAbsolute(value) || value.includes('/') || value.includes('\\') || value.endsWith('.prose') || value.startsWith('.');
}

async function resolvePath(value: string, scope: FlowRefScope, recorded: readonly RecordedFlow[]): Promise<string> {
  if (!isAbsolute(value) && scope.cwd === null) {
    throw new FlowRefError(`"${value}" is a relative path, and only the command line has a directory to read it from; ${FORMS}`);
  }
  const absolute = resolve(scope.cwd ?? '/', value);
  const key = scope.keys.keyOf(absolute);
  if (isFile(absolute) || recorded.some((f) => f.flow === key)) return key;
  const where = absolute === value ? '' : ` (${absolute})`;
  throw new FlowRefError(`no flow file ${value}${where}, and no run was started from it; ${FORMS}`);
}

/** The one form of a flow reference (see the module comment); a FlowRefError when it can never match. */
export async function resolveFlowRef(text: string, scope: FlowRefScope): Promise<string> {
  const value = text.trim();
  if (value === '') throw new FlowRefError(`needs a flow; ${FORMS}`);
  if (value.length > MAX_CHARS) throw new FlowRefError(`must be at most ${MAX_CHARS} characters`);
  const recorded = await scope.recorded();
  // What runs recorded is always itself, whatever it looks like.
  if (recorded.some((f) => f.flow === value)) return value;
  if (FlowKeys.isFolderKey(value)) {
    if (await inFolder(scope.keys, value)) return value;
    const relative = scope.cwd === null ? null : resolve(scope.cwd, value);
    if (relative !== null && isFile(relative)) return scope.keys.keyOf(relative);
    throw new FlowRefError(`no flow ${value}: no such file in the ${value.split('/')[0]} folder, and no run was started from it; ${FORMS}`);
  }
  if (value.startsWith(EXTERNAL_FLOW_PREFIX)) {
    if (EXTERNAL.test(value)) return value;
    throw new FlowRefError(`"${value}" is not an agent's sessions (external:<agent>, e.g. external:claude-code)`);
  }
  if (looksLikePath(value)) return resolvePath(value, scope, recorded);
  if (recorded.some((f) => f.flowName === value)) return value;
  if ((await inFolder(scope.keys, `examples/${value}.prose`)) || (await inFolder(scope.keys, `user/${value}.prose`))) return value;
  throw new FlowRefError(`no flow is named "${value}": no run has that name and neither flows folder holds ${value}.prose; ${FORMS}`);
}

/** Whether a run of `flow` (its key) named `flowName` is one a resolved reference means. */
export function flowRefMatches(ref: string, flow: string, flowName: string): boolean {
  return ref === flow || ref === flowName;
}

/** The scope of a database: its runs' flows, the folders of the process using it, and a directory or none. */
/** What a scope reads of the runs: the flows they recorded (the store's or the API's `countRuns`). */
interface RecordedFlows {
  countRuns(filter: Record<string, never>): Promise<{ byFlow: readonly RecordedFlow[] }>;
}

export function flowRefScope(store: RecordedFlows, folders: FlowFolders, cwd: string | null): FlowRefScope {
  let cached: Promise<readonly RecordedFlow[]> | null = null;
  // Read once per scope: a rule or a filter is resolved against one look at the runs.
  const recorded = (): Promise<readonly RecordedFlow[]> => (cached ??= store.countRuns({}).then((counts) => counts.byFlow));
  return { keys: new FlowKeys(folders), cwd, recorded };
}
