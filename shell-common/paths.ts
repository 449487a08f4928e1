import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the package's own files are, whether this module runs from the sources (shell-common/*.ts in
 * tests) or compiled (dist/shell-common/*.js): the nearest folder above with hivewatch's package.json.
 */
export function findPackageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'hivewatch') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find hivewatch's package.json above ${from}`);
    dir = parent;
  }
}

export interface PackagePaths {
  root: string;
  examplesDir: string;
  /** The built renderer served on the same origin (absent until `npx vite build`). */
  rendererDist: string;
  distDir: string;
}

export function packagePaths(root: string = findPackageRoot()): PackagePaths {
  return {
    root,
    examplesDir: join(root, 'examples'),
    rendererDist: join(root, 'renderer-dist'),
    distDir: join(root, 'dist'),
  };
}
