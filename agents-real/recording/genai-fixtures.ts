import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from './fixtures-io.js';
import type { GenAiProtocol } from '../genai-client/genai-client.js';

/**
 * The recorded runs of the GenAI-instrumented client (genai-client.ts):
 * agents-real/fixtures/genai-openai/<scenario>/ (exported as JSON) and <scenario>.protobuf/, and
 * those of the GenAI SDK apps (genai-sdks/apps.ts): agents-real/fixtures/genai-<app>/<scenario>/. Each holds
 * run.json (the pinned package versions, the protocol, the exit, what it printed, every provider
 * request with what the stub answered, every OTLP export's path and content type) and
 * otlp/<n>-traces.json|.pb, each export's body exactly as received. The
 * client sends no secret of its own (its API key is a made-up one the stub ignores; the OTLP
 * token is in a header, which run.json does not keep).
 */

/** The folder of the weather agent's recordings; the GenAI SDK apps' are `genai-<app>/` beside it (genai-sdks/apps.ts). */
const GENAI_OPENAI = 'genai-openai';
const dirOf = (family: string): string => join(FIXTURES_DIR, family);

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

export function writeGenAiFixture(run: GenAiFixtureRun, bodies: readonly Buffer[], family = GENAI_OPENAI): void {
  const dir = join(dirOf(family), run.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'otlp'), { recursive: true });
  run.exports.forEach((e, i) => writeFileSync(join(dir, e.file), bodies[i] ?? Buffer.alloc(0)));
  writeFileSync(join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
}

/** The folder of a scenario's recording in a protocol. */
export const genAiFixtureId = (scenario: string, protocol: GenAiProtocol): string => (protocol === 'http/protobuf' ? `${scenario}.protobuf` : scenario);

export function readGenAiFixture(id: string, family = GENAI_OPENAI): LoadedGenAiFixture | null {
  const dir = join(dirOf(family), id);
  if (!existsSync(join(dir, 'run.json'))) return null;
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as GenAiFixtureRun;
  return { run, bodies: run.exports.map((e) => readFileSync(join(dir, e.file))) };
}

export function genAiFixtureIds(family = GENAI_OPENAI): string[] {
  const dir = dirOf(family);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => existsSync(join(dir, name, 'run.json')))
        .sort()
    : [];
}
