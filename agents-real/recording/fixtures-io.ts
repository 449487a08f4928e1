import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CLAUDE_STUB_API_KEY, CLAUDE_STUB_OAUTH_TOKEN } from '../cli/claude.js';
import { CODEX_STUB_API_KEY } from '../cli/codex.js';
import { decompress, type CapturedEncoding, type CapturedExport, type CapturedSignal } from '../otlp/otlp-capture.js';
import type { CliName } from '../pins.js';
import type { StubRequest } from '../stubs/provider-stub.js';
import { OTLP_TOKEN, type RunRecord } from '../cli/session.js';
import type { RunShape } from '../otlp/shape.js';
import type { RunSpec } from '../specs.js';

/**
 * The recorded fixtures: agents-real/fixtures/<cli>/<run id>/ holds one run of the pinned version
 * as it happened (<cli>@<version>/<run id>/ one of an older pin, kept as a regression case) —
 * run.json (the command, the exit, every provider request and what it was answered, every OTLP
 * export's headers), stdout.txt, stderr.txt, config.toml (Codex), otlp/<n>-<signal>.<json|pb>
 * (bodies as received; gzipped, `.gz`, above 256 KiB) and shape.json (the shape its recordings had
 * in common, and all they had). The only change to what the CLI sent: the made-up secrets are
 * overwritten with X's of the same length (a protobuf body stays decodable).
 */

/** The repository's root: the first folder up from this file with a package.json (the compiled recorder runs from node_modules/.cache/). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const FIXTURES_DIR = join(repoRoot(), 'agents-real', 'fixtures');

const GZIP_ABOVE = 256 * 1024;
const SECRETS = [CLAUDE_STUB_API_KEY, CLAUDE_STUB_OAUTH_TOKEN, CODEX_STUB_API_KEY, OTLP_TOKEN];

/** Every made-up secret overwritten with as many X's: the same length, so protobuf stays valid. */
function redactSecrets(data: Buffer): Buffer {
  let out = data;
  for (const secret of SECRETS) {
    const needle = Buffer.from(secret);
    const mask = Buffer.from('X'.repeat(secret.length));
    let at = out.indexOf(needle);
    if (at >= 0) out = Buffer.from(out);
    while (at >= 0) {
      mask.copy(out, at);
      at = out.indexOf(needle, at + needle.length);
    }
  }
  return out;
}

export function containsSecret(data: Buffer): string | null {
  return SECRETS.find((s) => data.includes(Buffer.from(s))) ?? null;
}

interface FixtureExport {
  seq: number;
  path: string;
  signal: CapturedSignal;
  encoding: CapturedEncoding;
  contentType: string;
  contentEncoding: string | null;
  headers: Record<string, string>;
  authorized: boolean;
  bytes: number;
  /** Relative to the run's folder. */
  file: string;
}

export interface FixtureRun {
  id: string;
  spec: RunSpec;
  cliVersion: string;
  recordedAt: string;
  /** What the provider stub was told to answer, step by step (the last step repeats). */
  script: readonly unknown[];
  argv: string[];
  env: Record<string, string>;
  exitCode: number | null;
  signal: string | null;
  killedBy: string | null;
  durationMs: number;
  apiRequestCount: number;
  apiRequests: Omit<StubRequest, 'body'>[];
  /** The model each API request named (from its body; the bodies themselves are not kept). */
  apiRequestModels: string[];
  otherRequests: Omit<StubRequest, 'body'>[];
  egress: string[];
  otlp: FixtureExport[];
}

export interface FixtureShape {
  repeats: number;
  required: RunShape;
  seen: RunShape;
}

/**
 * The folder of a CLI's runs: `<cli>/` for the pinned version, `<cli>@<version>/` for an older
 * pin whose runs stay as regression cases (the classifier and mapping tests read them too).
 */
function cliDir(cli: CliName, version?: string): string {
  return join(FIXTURES_DIR, version === undefined ? cli : `${cli}@${version}`);
}

function runDir(cli: CliName, id: string, version?: string): string {
  return join(cliDir(cli, version), id);
}

/** The older pins of a CLI whose recordings are kept (`<cli>@<version>/` folders), oldest first. */
function archivedVersions(cli: CliName): string[] {
  if (!existsSync(FIXTURES_DIR)) return [];
  const prefix = `${cli}@`;
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** One recorded run, of the pinned version or an archived one. */
export interface FixtureRef {
  cli: CliName;
  id: string;
  /** Undefined: the pinned version's folder. */
  version?: string;
}

/** Every recorded run of a CLI: the pinned version's, then each archived version's. */
export function allFixtureRefs(cli: CliName): FixtureRef[] {
  return [
    ...fixtureIds(cli).map((id) => ({ cli, id })),
    ...archivedVersions(cli).flatMap((version) => fixtureIds(cli, version).map((id) => ({ cli, id, version }))),
  ];
}

/** A run's name in a test title: its id, with the archived version it came from. */
export const fixtureLabel = (ref: FixtureRef): string => (ref.version === undefined ? ref.id : `${ref.id} (${ref.cli} ${ref.version})`);

const withoutBody = ({ body: _body, ...rest }: StubRequest): Omit<StubRequest, 'body'> => rest;

function modelOf(request: StubRequest): string {
  const body = request.body;
  return typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).model === 'string'
    ? String((body as Record<string, unknown>).model)
    : '';
}

function exportFile(capture: CapturedExport): { name: string; data: Buffer } {
  const ext = capture.encoding === 'json' ? 'json' : capture.encoding === 'protobuf' ? 'pb' : 'bin';
  const base = `${String(capture.seq).padStart(3, '0')}-${capture.signal}.${ext}`;
  const data = redactSecrets(capture.body);
  return data.length > GZIP_ABOVE ? { name: `${base}.gz`, data: gzipSync(data, { level: 9 }) } : { name: base, data };
}

/** Writes one run's folder (replacing what was there) and returns its run.json. */
export function writeFixture(record: RunRecord, shape: FixtureShape): FixtureRun {
  const dir = runDir(record.spec.cli, record.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'otlp'), { recursive: true });
  const text = (name: string, content: string): void => writeFileSync(join(dir, name), redactSecrets(Buffer.from(content)));
  text('stdout.txt', record.result.stdout);
  text('stderr.txt', record.result.stderr);
  if (record.configToml !== null) text('config.toml', record.configToml);
  const otlp: FixtureExport[] = record.otlp.map((capture) => {
    const file = exportFile(capture);
    writeFileSync(join(dir, 'otlp', file.name), file.data);
    const { body: _body, payload: _payload, ...meta } = capture;
    return { ...meta, bytes: capture.body.length, file: `otlp/${file.name}` };
  });
  const run: FixtureRun = {
    id: record.id,
    spec: record.spec,
    cliVersion: record.cliVersion,
    recordedAt: new Date(record.startedAtMs).toISOString(),
    script: record.script,
    argv: record.argv,
    env: record.env,
    exitCode: record.result.exitCode,
    signal: record.result.signal,
    killedBy: record.result.killedBy,
    durationMs: record.result.durationMs,
    apiRequestCount: record.apiRequests.length,
    apiRequests: record.apiRequests.map(withoutBody),
    apiRequestModels: record.apiRequests.map(modelOf),
    otherRequests: record.otherRequests.map(withoutBody),
    egress: record.egress,
    otlp,
  };
  text('run.json', `${JSON.stringify(run, null, 2)}\n`);
  text('shape.json', `${JSON.stringify(shape, null, 2)}\n`);
  return run;
}

export interface LoadedFixture {
  dir: string;
  run: FixtureRun;
  shape: FixtureShape;
  stdout: string;
  stderr: string;
  /** The exports rebuilt as the capture had them (bodies decompressed from their `.gz` files). */
  exports: CapturedExport[];
}

export function readFixture(cli: CliName, id: string, version?: string): LoadedFixture | null {
  const dir = runDir(cli, id, version);
  if (!existsSync(join(dir, 'run.json'))) return null;
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as FixtureRun;
  const shape = JSON.parse(readFileSync(join(dir, 'shape.json'), 'utf8')) as FixtureShape;
  const exports: CapturedExport[] = run.otlp.map((meta) => {
    const raw = readFileSync(join(dir, meta.file));
    const body = meta.file.endsWith('.gz') ? gunzipSync(raw) : raw;
    const { bytes: _bytes, file: _file, ...rest } = meta;
    return { ...rest, body, payload: decompress(body, meta.contentEncoding) };
  });
  return { dir, run, shape, stdout: readFileSync(join(dir, 'stdout.txt'), 'utf8'), stderr: readFileSync(join(dir, 'stderr.txt'), 'utf8'), exports };
}

/** The run ids recorded for a CLI: by the pinned version, or by an archived one. */
export function fixtureIds(cli: CliName, version?: string): string[] {
  const dir = cliDir(cli, version);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => existsSync(join(dir, name, 'run.json')))
        .sort()
    : [];
}
