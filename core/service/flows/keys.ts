import { existsSync, realpathSync, statSync } from 'node:fs';
import { specialFileKind } from '../../base/regular-file.js';
import { defaultDatabasePath } from '../../store/sqlite/database.js';
import { isPostgresUrl } from '../../store/open.js';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../../base/errors/taxonomy.js';

/**
 * The one place that turns a flow key into a file and a file into a flow key, for the app
 * (service, server, Electron) and the CLI alike. A key is what a run records as its `flow`:
 *
 * - `examples/<file>.prose`: a bundled example, in the package's `examples/` folder;
 * - `user/<file>.prose`: the operator's own folder, which for a database at `<dir>/x.db` is
 *   `<dir>/flows` (the app and the CLI derive it from the database the run was journaled in,
 *   never from the current directory);
 * - an absolute path: any other file a run was started from on the command line.
 *
 * A key under a folder reaches only a file whose real path (symlinks followed) is directly inside
 * that folder's real path: a link leaving the folder is refused, listed nowhere and never read.
 */

export const FLOW_FOLDERS = { examples: 'examples', user: 'user' } as const;
export type FlowFolder = (typeof FLOW_FOLDERS)[keyof typeof FLOW_FOLDERS];

const KEY = /^(examples|user)\/([A-Za-z0-9][A-Za-z0-9._-]*\.prose)$/;

export interface FlowFolders {
  examplesDir: string;
  /** The operator's own flows; null when there is none (an in-memory database). */
  userFlowsDir: string | null;
}

export const FlowKeyProblem = {
  noFolder: 'no_folder',
  notFound: 'not_found',
  outsideFolder: 'outside_folder',
  notAKey: 'not_a_key',
  /** A FIFO, device or socket: never read (a FIFO blocks the read, a device never ends). */
  notAFile: 'not_a_file',
} as const;
export type FlowKeyProblem = (typeof FlowKeyProblem)[keyof typeof FlowKeyProblem];

/** Each problem's code in the one taxonomy (core/base/errors/taxonomy.ts). */
const PROBLEM_CODES: Record<FlowKeyProblem, ErrorCode> = {
  no_folder: 'USER_NO_FLOWS_FOLDER',
  not_found: 'USER_FLOW_NOT_FOUND',
  outside_folder: 'USER_FLOW_OUTSIDE_FOLDER',
  not_a_key: 'USER_INVALID_INPUT',
  not_a_file: 'USER_FLOW_NOT_A_FILE',
};

export class FlowKeyError extends HivewatchError {
  constructor(
    readonly problem: FlowKeyProblem,
    readonly key: string,
    message: string,
  ) {
    super(PROBLEM_CODES[problem], { message, context: { problem, key } });
    this.name = 'FlowKeyError';
  }
}

export interface ResolvedFlow {
  key: string;
  /** The path as the operator sees it (inside the folder, or the recorded absolute path). */
  path: string;
  /** The file actually read: `path` with symlinks followed, checked to stay in the folder. */
  realPath: string;
}

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The bundled examples of this installation. */
export function bundledExamplesDir(): string {
  return join(packageRoot(), 'examples');
}

/** The operator's flows folder of the app using the database at `dbPath`: `flows/` beside it. */
export function appFlowsDirOf(dbPath: string): string | null {
  if (dbPath === ':memory:' || dbPath === '') return null;
  // A team database (PostgreSQL) has no folder: each machine keeps its own flows where its
  // default database would be, and a run's key (user/x.prose) resolves there (docs/decisions/0024-one-query-code-two-engines.md).
  // Never the URL itself (its password would become a folder name): the default file's folder,
  // whatever HIVEWATCH_DB says (which is this very URL when the database came from it).
  if (isPostgresUrl(dbPath)) return join(dirname(defaultDatabasePath({ ...process.env, HIVEWATCH_DB: undefined })), 'flows');
  return join(dirname(resolve(dbPath)), 'flows');
}

/** The folders of the app (or CLI) using the database at `dbPath`. */
export function flowFoldersForDatabase(dbPath: string, examplesDir: string = bundledExamplesDir()): FlowFolders {
  return { examplesDir, userFlowsDir: appFlowsDirOf(dbPath) };
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}

/** Whether `child` names an entry directly inside `folder` (both already absolute). */
function directlyInside(folder: string, child: string): boolean {
  const inside = relative(folder, child);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) && !inside.includes(sep);
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export class FlowKeys {
  constructor(readonly folders: FlowFolders) {}

  folderOf(prefix: FlowFolder): string | null {
    return prefix === FLOW_FOLDERS.examples ? this.folders.examplesDir : this.folders.userFlowsDir;
  }

  /** Whether `key` has the shape of a folder key (`examples/<file>.prose` or `user/<file>.prose`). */
  static isFolderKey(key: string): boolean {
    return KEY.test(key);
  }

  /**
   * The key a run started from `file` records: a folder key when the file sits in one of the
   * folders (and its real path stays there), else its absolute path, so one file never shows
   * under two keys and `retry` / `resume` find it from any directory.
   */
  keyOf(file: string): string {
    const absolute = resolve(file);
    const dir = realpathOrSelf(dirname(absolute));
    const real = realpathOrSelf(absolute);
    for (const prefix of [FLOW_FOLDERS.examples, FLOW_FOLDERS.user]) {
      const folder = this.folderOf(prefix);
      if (folder === null) continue;
      const realFolder = realpathOrSelf(resolve(folder));
      if (dir !== realFolder || !directlyInside(realFolder, real)) continue;
      const key = `${prefix}/${basename(absolute)}`;
      if (KEY.test(key)) return key;
    }
    return absolute;
  }

  /**
   * Where the file of `key` is; throws a FlowKeyError saying why when it cannot be reached.
   * Synchronous file system calls (each microseconds on the local folders these are): every
   * asynchronous one waits a turn of the event loop, and under load a start spent most of its
   * time waiting those turns. The promise settles within microtasks.
   */
  async resolve(key: string): Promise<ResolvedFlow> {
    return this.resolveNow(key);
  }

  private resolveNow(key: string): ResolvedFlow {
    const match = KEY.exec(key);
    if (match === null) {
      if (!isAbsolute(key)) {
        throw new FlowKeyError(FlowKeyProblem.notAKey, key, `flow ${key} is neither examples/<file>.prose, user/<file>.prose nor an absolute path`);
      }
      return { key, path: key, realPath: this.realFile(key, key) };
    }
    const prefix = match[1] as FlowFolder;
    const name = match[2] as string;
    const folder = this.folderOf(prefix);
    if (folder === null) throw new FlowKeyError(FlowKeyProblem.noFolder, key, `no flow ${key}: no operator flows folder is configured`);
    const path = join(folder, name);
    const realPath = this.realFile(key, path);
    let realFolder: string;
    try {
      realFolder = realpathSync.native(folder);
    } catch (error) {
      if (isMissing(error)) throw new FlowKeyError(FlowKeyProblem.notFound, key, `no flow ${key}`);
      throw error;
    }
    if (!directlyInside(realFolder, realPath)) {
      throw new FlowKeyError(
        FlowKeyProblem.outsideFolder,
        key,
        `flow ${key} is a link to a file outside ${folder}; only files inside the flows folder can be listed or run`,
      );
    }
    return { key, path, realPath };
  }

  private realFile(key: string, path: string): string {
    try {
      const real = realpathSync.native(path);
      const stats = statSync(real);
      const special = specialFileKind(stats);
      if (special !== null)
        throw new FlowKeyError(FlowKeyProblem.notAFile, key, `flow ${key} is ${special}, not a regular file; only regular files can be listed or run`);
      if (!stats.isFile()) throw new FlowKeyError(FlowKeyProblem.notFound, key, `no flow ${key}`);
      return real;
    } catch (error) {
      if (isMissing(error)) throw new FlowKeyError(FlowKeyProblem.notFound, key, `no flow ${key}`);
      throw error;
    }
  }
}
