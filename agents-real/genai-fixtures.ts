import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from './fixtures-io.js';

/**
 * The recorded runs of the GenAI-instrumented client (genai-client.ts):
 * agents-real/fixtures/genai-openai/<scenario>/ holds run.json (the pinned package versions, the
 * exit, what it printed, every provider request with what the stub answered, every OTLP export's
 * path and content type) and otlp/<n>-traces.json, each export's body exactly as received. The
 * client sends no secret of its own (its API key is a made-up one the stub ignores; the OTLP
 * token is in a header, which run.json does not keep).
 */

const GENAI_FIXTURES_DIR = join(FIXTURES_DIR, 'genai-openai');

export interface GenAiFixtureRun {
  scenario: string;
  recordedAt: string;
  node: string;
  packages: Record<string, string>;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  apiRequests: { n: number; path: string; answer: string }[];
  exports: { seq: number; path: string; contentType: string; file: string }[];
}

export interface LoadedGenAiFixture {
  run: GenAiFixtureRun;
  /** Each export's body, in arrival order. */
  bodies: Buffer[];
}

export function writeGenAiFixture(run: GenAiFixtureRun, bodies: readonly Buffer[]): void {
  const dir = join(GENAI_FIXTURES_DIR, run.scenario);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'otlp'), { recursive: true });
  run.exports.forEach((e, i) => writeFileSync(join(dir, e.file), bodies[i] ?? Buffer.alloc(0)));
  writeFileSync(join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
}

export function readGenAiFixture(scenario: string): LoadedGenAiFixture | null {
  const dir = join(GENAI_FIXTURES_DIR, scenario);
  if (!existsSync(join(dir, 'run.json'))) return null;
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as GenAiFixtureRun;
  return { run, bodies: run.exports.map((e) => readFileSync(join(dir, e.file))) };
}

export function genAiFixtureScenarios(): string[] {
  return existsSync(GENAI_FIXTURES_DIR) ? readdirSync(GENAI_FIXTURES_DIR).filter((name) => existsSync(join(GENAI_FIXTURES_DIR, name, 'run.json'))).sort() : [];
}
