import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from './fixtures-io.js';
import type { GenAiProtocol } from './genai-client.js';

/**
 * The recorded runs of the GenAI-instrumented client (genai-client.ts):
 * agents-real/fixtures/genai-openai/<scenario>/ (exported as JSON) and <scenario>.protobuf/ hold
 * run.json (the pinned package versions, the protocol, the exit, what it printed, every provider
 * request with what the stub answered, every OTLP export's path and content type) and
 * otlp/<n>-traces.json|.pb, each export's body exactly as received. The
 * client sends no secret of its own (its API key is a made-up one the stub ignores; the OTLP
 * token is in a header, which run.json does not keep).
 */

const GENAI_FIXTURES_DIR = join(FIXTURES_DIR, 'genai-openai');

export interface GenAiFixtureRun {
  /** The folder: the scenario, `.protobuf` after it when exported as protobuf. */
  id: string;
  scenario: string;
  protocol: GenAiProtocol;
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
  const dir = join(GENAI_FIXTURES_DIR, run.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'otlp'), { recursive: true });
  run.exports.forEach((e, i) => writeFileSync(join(dir, e.file), bodies[i] ?? Buffer.alloc(0)));
  writeFileSync(join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
}

/** The folder of a scenario's recording in a protocol. */
export const genAiFixtureId = (scenario: string, protocol: GenAiProtocol): string => (protocol === 'http/protobuf' ? `${scenario}.protobuf` : scenario);

export function readGenAiFixture(id: string): LoadedGenAiFixture | null {
  const dir = join(GENAI_FIXTURES_DIR, id);
  if (!existsSync(join(dir, 'run.json'))) return null;
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as GenAiFixtureRun;
  return { run, bodies: run.exports.map((e) => readFileSync(join(dir, e.file))) };
}

export function genAiFixtureIds(): string[] {
  return existsSync(GENAI_FIXTURES_DIR) ? readdirSync(GENAI_FIXTURES_DIR).filter((name) => existsSync(join(GENAI_FIXTURES_DIR, name, 'run.json'))).sort() : [];
}
