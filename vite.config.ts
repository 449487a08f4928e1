import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// One config for the renderer build (root: renderer/) and for Vitest (the whole tree).
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../renderer-dist',
    emptyOutDir: true,
    rollupOptions: {
      // The lazy screens share small modules (a copy button, an envelope view): merged into the
      // chunks that import them rather than each a request of its own on a screen's first open.
      output: { experimentalMinChunkSize: 10_000 },
    },
  },
  test: {
    root: '.',
    include: [
      'core/**/*.test.ts',
      'shell-common/**/*.test.ts',
      'server/**/*.test.ts',
      'electron/**/*.test.ts',
      'renderer/**/*.test.{ts,tsx}',
      'e2e/**/*.test.ts',
      'agents-real/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores, which is one on a two-core machine; most
    // files wait on subprocesses, PostgreSQL clusters or Chromium rather than the CPU, so two
    // files at once finish the suite far sooner on that machine without starving either.
    maxWorkers: 2,
    // The second builds renderer-dist/ for the browser journeys when a renderer source changed.
    globalSetup: ['./test-global-setup.ts', './e2e/support/global-setup.ts'],
  },
});
