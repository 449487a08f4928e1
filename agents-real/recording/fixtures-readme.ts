import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR, fixtureIds, readFixture } from './fixtures-io.js';
import { CLI_PINS, type CliName } from '../pins.js';
import { SCENARIOS } from '../specs.js';

/**
 * agents-real/fixtures/README.md, written by the recorder from the run.json files: which CLI
 * version made each folder, with what, and how to make them again.
 */

const HEADER = `# Recorded runs of the real agent CLIs

Each folder under \`claude-code/\` and \`codex-cli/\` is one run of the pinned CLI (the table
names the version that made it) against the local provider stub, as \`agents-real/cli/session.ts\`
sets it up (docs/real-agents.md explains the setup and what the runs show):

- \`run.json\`: the command line, the variables the CLI got (secrets as \`<redacted>\`), its
  exit code / signal, every request to the provider stub with what the stub answered
  (\`apiRequests\`; bodies are not kept, \`apiRequestModels\` names the model each asked for),
  requests to other paths, attempts to leave loopback (\`egress\`: empty but in the
  \`network-defaults\` runs), and every OTLP export with its headers;
- \`stdout.txt\`, \`stderr.txt\`: what the CLI printed;
- \`config.toml\`: Codex's configuration for the run;
- \`otlp/<n>-<signal>.json|.pb\`: each OTLP/HTTP request body exactly as received, in arrival
  order (gzipped as \`.gz\` when over 256 KiB: Codex's traces);
- \`shape.json\`: the shape (stdout line kinds and keys, telemetry event names and attribute
  types) the run's recordings had in common (\`required\`; the live suites check a fresh run
  against it) and all of them had (\`seen\`).

Re-record (needs the npm registry; the CLIs are cached in ~/.cache/hivewatch-test-clis):

\`\`\`sh
npm run record-cli-fixtures                       # everything (~40 min: runs with default backoff take minutes)
npm run record-cli-fixtures -- --no-slow          # without those
npm run record-cli-fixtures -- --cli codex-cli --scenario stall
\`\`\`

What was changed from what the CLIs sent: the made-up credentials (the stub API keys, the OAuth
token, the OTLP bearer token) are overwritten with \`X\`s of the same length, in every file
including the protobuf bodies (so they still decode). Nothing else: timestamps, ids, ports and
paths are as recorded (each run's home is \`$TMPDIR/hivewatch-cli-record/<cli>/<run>\`).

`;

function row(cli: CliName, id: string): string {
  const fixture = readFixture(cli, id);
  if (!fixture) return '';
  const { run } = fixture;
  const exit = run.killedBy ? `killed (${run.killedBy})` : String(run.exitCode);
  const retries = run.spec.retries === 'default' ? 'default' : String(run.spec.retries);
  return `| ${cli} ${run.cliVersion} | \`${id}\` | ${SCENARIOS[run.spec.scenario]} | ${run.spec.output} | ${run.spec.protocol} | ${retries} | ${exit} | ${run.apiRequestCount} | ${run.otlp.length} |`;
}

export function writeFixturesReadme(): void {
  const lines = [
    HEADER,
    '| CLI (version that made it) | run | scenario | output | OTLP | retries | exit | API requests | OTLP exports |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const cli of Object.keys(CLI_PINS) as CliName[]) {
    for (const id of fixtureIds(cli)) {
      const line = row(cli, id);
      if (line) lines.push(line);
    }
  }
  writeFileSync(join(FIXTURES_DIR, 'README.md'), `${lines.join('\n')}\n`);
}
