#!/usr/bin/env node
// `npm run build` / `build:dev` start from an empty output folder: tsc never deletes what it no
// longer compiles, so a moved or excluded file (test support) would stay in dist/ otherwise.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const folder = process.argv[2];
if (folder !== 'dist' && folder !== 'dist-dev') {
  console.error('usage: node bin/clean-build.js dist|dist-dev');
  process.exit(2);
}
rmSync(join(root, folder), { recursive: true, force: true });
