// The fake agent: a real subprocess that behaves like an agent CLI on demand, so the whole
// pipeline (spawn, capture, exit status, signals, classification, retries) is exercised
// without a real tool. Plain JavaScript and self-contained on purpose: it is run directly by
// `process.execPath` (Node, or Electron with ELECTRON_RUN_AS_NODE=1) from core/ in tests and
// from dist/core/ after a build, so it cannot import the TypeScript sources. The small outcome
// parsing below duplicates core/flow/simulate.ts; core/runtimes/simulated.ts mirrors what each
// outcome prints, and a test keeps the three in step.
//
// Inputs (environment):
//   HIVEWATCH_FAKE_SIMULATE  outcomes, comma separated, one per attempt, the last repeating (default "ok")
//   HIVEWATCH_FAKE_ATTEMPT   1-based attempt number (default 1)
//   HIVEWATCH_FAKE_PROMPT    the prompt (echoed, shortened, by "ok")

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

main();
