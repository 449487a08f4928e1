#!/usr/bin/env node
// Benchmarks run from the compiled dist/ (built by `npm run build`, which `npm run bench` runs first).
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { main } = await import(join(root, 'dist', 'bench', 'main.js'));
process.exitCode = await main(process.argv.slice(2));
