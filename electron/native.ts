import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * better-sqlite3 inside Electron needs a build for Electron's ABI, kept apart from the Node
 * build in node_modules (which keeps serving the CLI and the tests). Where it is looked for, in
 * order: `$HIVEWATCH_SQLITE_BINDING`, then `native/electron/better_sqlite3.node` and
 * `native/electron/build/Release/better_sqlite3.node` under the package. See the README
 * ("Electron and better-sqlite3") for how to build it.
 */
export function electronSqliteBinding(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const candidates = [
    env.HIVEWATCH_SQLITE_BINDING,
    join(root, 'native', 'electron', 'better_sqlite3.node'),
    join(root, 'native', 'electron', 'build', 'Release', 'better_sqlite3.node'),
  ];
  return candidates.find((path): path is string => typeof path === 'string' && path !== '' && exists(path));
}

export const NATIVE_HELP = `better-sqlite3 needs a build for Electron's ABI, kept apart from the Node build. In the project folder run:

  npm run build:electron-sqlite

It writes native/electron/better_sqlite3.node (node_modules/ is not touched). Or set HIVEWATCH_SQLITE_BINDING to a better_sqlite3.node built for this Electron. See the README, "Electron and better-sqlite3".`;
