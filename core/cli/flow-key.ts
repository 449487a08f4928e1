import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The key a run records for its flow (the `flow` dimension of error counts). A bundled example
 * gets the same id the app uses (`examples/<file>`), whichever way it was started, so one flow
 * never shows under two keys; any other file is recorded by absolute path so that `retry` and
 * `resume` work from any directory.
 */

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const EXAMPLES_DIR = join(packageRoot(), 'examples');

export function flowKeyOf(file: string): string {
  const absolute = resolve(file);
  const inside = relative(EXAMPLES_DIR, absolute);
  if (!inside.startsWith('..') && !isAbsolute(inside) && !inside.includes(sep)) return `examples/${inside}`;
  return absolute;
}

/** Where the file of a recorded flow key is. */
export function flowFileOf(key: string): string {
  if (key.startsWith('examples/')) return join(EXAMPLES_DIR, key.slice('examples/'.length));
  return isAbsolute(key) ? key : resolve(key);
}
