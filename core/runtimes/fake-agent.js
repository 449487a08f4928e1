// The fake agent: a real subprocess that behaves like an agent CLI on demand, so the whole
// pipeline (spawn, capture, exit status, signals, classification, retries) is exercised
// without a real tool. Plain JavaScript and self-contained on purpose: it is run directly by
// `process.execPath` (Node, or Electron with ELECTRON_RUN_AS_NODE=1) from core/ in tests and
// from dist/core/ after a build, so it cannot import the TypeScript sources. The small outcome
// parsing below duplicates core/flow/plan/simulate.ts; core/runtimes/simulated.ts mirrors what each
// outcome prints, and a test keeps the three in step.
//
// Inputs (environment):
//   HIVEWATCH_FAKE_SIMULATE  outcomes, comma separated, one per attempt, the last repeating (default "ok")
//   HIVEWATCH_FAKE_ATTEMPT   1-based attempt number (default 1)
//   HIVEWATCH_FAKE_PROMPT    the prompt (echoed, shortened, by "ok")
//   CLAUDE_CODE_ENABLE_TELEMETRY=1 with OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS,
//   OTEL_RESOURCE_ATTRIBUTES), as Hivewatch passes a claude-code preset: before its outcome the
//   agent exports, as OTLP/HTTP JSON logs, what Claude Code would for a request the API refused
//   as overloaded once and then answered (docs/otel.md), so the telemetry path runs for real.

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 };
const PROMPT_CHARS = 80;

/** The prompt as `ok` echoes it: at most 80 characters, an ellipsis marking a cut. */
function shorten(prompt) {
  const chars = Array.from(prompt);
  return chars.length <= PROMPT_CHARS ? prompt : chars.slice(0, PROMPT_CHARS - 1).join('') + '…';
}

function fail(message) {
  process.stderr.write(`fake agent: ${message}\n`);
  process.exitCode = 2;
}

function succeed(result, changes) {
  process.stdout.write(JSON.stringify({ result, changes }) + '\n');
  process.exitCode = 0;
}

function main() {
  const simulate = process.env.HIVEWATCH_FAKE_SIMULATE || 'ok';
  const attempt = Number(process.env.HIVEWATCH_FAKE_ATTEMPT || '1');
  const prompt = process.env.HIVEWATCH_FAKE_PROMPT || '';
  if (!Number.isInteger(attempt) || attempt < 1) return fail(`HIVEWATCH_FAKE_ATTEMPT must be a whole number of at least 1`);

  const items = simulate.split(',').map((s) => s.trim());
  const item = items[Math.min(attempt, items.length) - 1];
  if (!item) return fail(`no outcome for attempt ${attempt} in "${simulate}"`);
  const colon = item.indexOf(':');
  const head = colon === -1 ? item : item.slice(0, colon);
  const arg = colon === -1 ? null : item.slice(colon + 1);

  switch (head) {
    case 'ok':
      return succeed(arg === null ? `ok: ${shorten(prompt)}` : arg, 1);
    case 'no_changes':
      return succeed('nothing to do', 0);
    case 'rate_limit':
      process.stderr.write('Error: 429 Too Many Requests (rate limit exceeded)\n');
      process.exitCode = 1;
      return;
    case 'timeout':
      process.stderr.write('timed out\n');
      process.exitCode = 124;
      return;
    case 'crash':
      // A real signal death, as a segfaulting tool would die.
      process.kill(process.pid, 'SIGSEGV');
      return;
    case 'exit': {
      const code = Number(arg);
      if (arg === null || !/^\d{1,3}$/.test(arg) || code > 255) return fail(`"exit" needs a code from 0 to 255`);
      process.stderr.write(`fake agent exiting with code ${code}\n`);
      process.exitCode = code;
      return;
    }
    case 'malformed':
      process.stdout.write('{not json\n');
      process.exitCode = 0;
      return;
    case 'slow': {
      const match = DURATION.exec(arg ?? '');
      if (!match) return fail(`"slow" needs a duration, e.g. "slow:2s"`);
      const ms = Math.round(Number(match[1]) * UNIT_MS[match[2]]);
      // No SIGTERM handler on purpose: the default action ends the process at once, which is
      // exactly the prompt exit a cancelled attempt needs.
      setTimeout(() => succeed(`ok: ${shorten(prompt)}`, 1), ms);
      return;
    }
    default:
      return fail(`unknown simulated outcome "${head}"`);
  }
}

/** `k=v,k2=v2` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES: values percent-encoded). */
function pairs(text) {
  const out = [];
  for (const part of (text || '').split(',')) {
    const at = part.indexOf('=');
    if (at > 0) out.push([part.slice(0, at).trim(), decodeURIComponent(part.slice(at + 1).trim())]);
  }
  return out;
}

/* global fetch */
async function exportTelemetry() {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (process.env.CLAUDE_CODE_ENABLE_TELEMETRY !== '1' || !endpoint) return;
  const str = (key, value) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: String(value) } });
  const session = `fake-${process.pid}`;
  const now = Date.now();
  const record = (i, name, attrs) => ({
    timeUnixNano: String((now + i) * 1e6),
    body: { stringValue: `claude_code.${name}` },
    attributes: [str('event.name', name), str('session.id', session), str('prompt.id', 'fake-prompt'), ...Object.entries(attrs).map(([k, v]) => str(k, v))],
  });
  const body = {
    resourceLogs: [
      {
        resource: {
          attributes: [
            str('service.name', 'claude-code'),
            str('service.version', 'fake'),
            ...pairs(process.env.OTEL_RESOURCE_ATTRIBUTES).map(([k, v]) => str(k, v)),
          ],
        },
        scopeLogs: [
          {
            scope: { name: 'hivewatch.fake-agent' },
            logRecords: [
              record(0, 'user_prompt', { prompt_length: (process.env.HIVEWATCH_FAKE_PROMPT || '').length }),
              record(1, 'api_error', { model: 'fake-model', error: 'Overloaded', status_code: '529', attempt: 1, duration_ms: 5 }),
              record(2, 'api_request', { model: 'fake-model', duration_ms: 7, cost_usd: 0 }),
            ],
          },
        ],
      },
    ],
  };
  const headers = { 'content-type': 'application/json', ...Object.fromEntries(pairs(process.env.OTEL_EXPORTER_OTLP_HEADERS)) };
  try {
    const res = await fetch(`${endpoint.replace(/\/$/, '')}/v1/logs`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) process.stderr.write(`fake agent: telemetry export answered ${res.status}: ${await res.text()}\n`);
  } catch (error) {
    // A real exporter drops what it cannot send; the agent's work goes on.
    process.stderr.write(`fake agent: telemetry export failed: ${error.message}\n`);
  }
}

exportTelemetry().then(main, main);
