#!/usr/bin/env node
// Benchmarks run from dist-dev/ (tsconfig.dev.json: the product and the test support the benches
// share with the tests), built by `npm run build:dev`, which `npm run bench` runs first.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { main } = await import(join(root, 'dist-dev', 'bench', 'main.js'));
process.exitCode = await main(process.argv.slice(2));
