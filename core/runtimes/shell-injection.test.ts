import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ofType, planOf, runPlan } from '../engine/testing.js';
import { checkFlow } from '../flow/check.js';
import type { AgentSpec } from '../flow/plan.js';
import { commandArgv, CommandRuntime } from './command.js';
import { runProcess } from './process.js';
import { createRuntimeRegistry } from './registry.js';
import type { AttemptRequest } from './runtime.js';

/**
 * Issue #25 part 3: every template shape × every payload, against a real /bin/sh and a real
 * bash, directly and through another agent's output (`{a}`). Nothing a payload says may run:
 * the marker file it tries to create never appears. A shape either renders the payload back as
 * data (it is printed verbatim) or is refused by `check` and by the runtime before anything
 * starts.
 */

const dir = mkdtempSync(join(tmpdir(), 'hw-inject-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MARKER = join(dir, 'ran');
// A payload that ran fails its own test; the next one starts without its marker.
afterEach(() => rmSync(MARKER, { force: true }));

const PAYLOADS: readonly [string, string][] = [
  ['semicolon', `; touch ${MARKER}`],
  ['command substitution', `$(touch ${MARKER})`],
  ['backticks', `\`touch ${MARKER}\``],
  ['single quotes', `'; touch ${MARKER}; '`],
  ['double quotes', `"; touch ${MARKER}; "`],
  ['newlines', `x\ntouch ${MARKER}\n`],
  ['and-and', `&& touch ${MARKER}`],
  ['NUL', `a\0; touch ${MARKER}`],
  ['quoted substitution', `'$(touch ${MARKER})'`],
  ['backslash quote', `\\'; touch ${MARKER} #`],
  ['here-document end', `EOF\ntouch ${MARKER}\nEOF`],
  ['arithmetic subscript', `a[$(touch ${MARKER})]`],
  ['mixed', `x" $(touch ${MARKER}) '\`touch ${MARKER}\`'`],
];

interface Shape {
  command: string;
  shell: boolean;
  /** Refused by check (and the runtime); otherwise the payload must come back verbatim. */
  refused: boolean;
}

const SHAPES: readonly Shape[] = [
  // The issue's shapes: refused.
  { command: 'echo "`echo {prompt}`"', shell: true, refused: true },
  { command: 'cat <<EOF\n{prompt}\nEOF', shell: true, refused: true },
  { command: "cat <<'EOF'\n{prompt}\nEOF", shell: true, refused: true },
  { command: 'echo "$(echo {prompt})"', shell: true, refused: true },
  { command: 'eval echo {prompt}', shell: true, refused: true },
  { command: "sh -c 'echo {prompt}'", shell: true, refused: true },
  { command: 'bash -c "echo {prompt}"', shell: true, refused: true },
  { command: "sh -c 'echo {prompt}'", shell: false, refused: true },
  { command: 'bash -c "echo {prompt}"', shell: false, refused: true },
  // Others found on the way: refused.
  { command: 'echo $(( 1 + {prompt} ))', shell: true, refused: true },
  { command: '[[ {prompt} -eq 1 ]] || echo no', shell: true, refused: true },
  { command: 'echo ok # {prompt}', shell: true, refused: true },
  { command: 'echo ${prompt}', shell: true, refused: true },
  { command: 'echo \\{prompt}', shell: true, refused: true },
  { command: 'env X=1 sh -c {prompt}', shell: false, refused: true },
  // Safe shapes: the value is data, printed back as given.
  { command: "printf '%s' {prompt}", shell: true, refused: false },
  { command: 'printf \'%s\' "{prompt}"', shell: true, refused: false },
  { command: "printf '%s' '{prompt}'", shell: true, refused: false },
  { command: "printf '%s' x{prompt}y", shell: true, refused: false },
  { command: 'X={prompt} sh -c \'printf "%s" "$X"\'', shell: true, refused: false },
  { command: 'sh -c \'printf "%s" "$1"\' sh {prompt}', shell: true, refused: false },
  { command: 'printf \'%s\' "$HIVEWATCH_PROMPT"', shell: true, refused: false },
  { command: 'cat <<EOF\n$HIVEWATCH_PROMPT\nEOF', shell: true, refused: false },
  { command: "case {prompt} in x) ;; *) printf '%s' {prompt};; esac", shell: true, refused: false },
  { command: 'printf %s {prompt}', shell: false, refused: false },
  { command: 'sh -c \'printf "%s" "$1"\' sh {prompt}', shell: false, refused: false },
];

/** A flow string literal for `text` (the lexer's escapes: \" \\ \n). */
const literal = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function agentFlow(shape: Shape, extra: string[] = []): string {
  return ['agent sink:', `  command: ${literal(shape.command)}`, `  shell: ${String(shape.shell)}`, ...extra].join('\n');
}

function sinkAgent(shape: Shape): AgentSpec {
  const plan = checkFlow(`${agentFlow(shape)}\n`, 'shape.prose').plan;
  const agent = plan?.agents.get('sink');
  if (!agent) throw new Error(`no agent in ${shape.command}`);
  return agent;
}

function request(agent: AgentSpec, prompt: string): AttemptRequest {
  return { runId: 'run_inject', taskId: '1:0', ordinal: 0, attempt: 1, prompt, agent, simulate: null, timeoutMs: 10_000, context: {}, cwd: dir };
}

/** What a safe shape prints for the payload (the runtime trims an output's surrounding whitespace). */
function expectedOutput(shape: Shape, payload: string): string {
  return (shape.command.includes('x{prompt}y') ? `x${payload}y` : payload).trim();
}

const label = (shape: Shape): string => `${shape.shell ? 'shell' : 'argv'} ${JSON.stringify(shape.command)}`;

describe.each(SHAPES)('the template $command (shell: $shell)', (shape) => {
  const agent = sinkAgent(shape);

  it(`check ${shape.refused ? 'refuses it at the placeholder, naming the safe alternative' : 'accepts it'}`, () => {
    const result = checkFlow(`${agentFlow(shape)}\nsession: sink\n  prompt: "x"\n`, 'shape.prose');
    const problems = result.diagnostics.filter((d) => d.message.includes('is not safe here'));
    if (shape.refused) {
      expect(problems.length, label(shape)).toBeGreaterThan(0);
      expect(problems[0]?.message).toContain('$HIVEWATCH_PROMPT');
    } else {
      expect(result.diagnostics).toEqual([]);
    }
  });

  it.each(PAYLOADS)('with a %s payload: nothing runs under /bin/sh (the runtime) or bash', async (_name, payload) => {
    const result = await new CommandRuntime({ killGraceMs: 200 }).execute(request(agent, payload), new AbortController().signal);
    expect(existsSync(MARKER), `${label(shape)} ran ${JSON.stringify(payload)} under /bin/sh`).toBe(false);
    if (shape.refused) {
      expect(result.kind === 'failed' && result.error.code).toBe('USER_INVALID_CONFIG');
      expect(result.kind === 'failed' && result.process).toBeUndefined();
      return;
    }
    if (payload.includes('\0')) {
      // No process argument can carry a NUL: the attempt fails to start, saying why, and runs nothing.
      if (!shape.command.includes('HIVEWATCH_PROMPT')) expect(result.kind === 'failed' && result.error.code).toBe('RUNTIME_CONNECTION_FAILED');
      return;
    }
    expect(result.kind === 'succeeded' && result.output).toBe(expectedOutput(shape, payload));
    if (!shape.shell) return;
    // The same rendered script under bash (what a template gets where /bin/sh is bash).
    const argv = commandArgv(agent, payload);
    if (!Array.isArray(argv)) throw new Error('a safe shape rendered no script');
    const bash = await runProcess({ argv: ['bash', '-c', argv[2] as string], runtimeName: 'bash', cwd: dir, env: { HIVEWATCH_PROMPT: payload }, timeoutMs: 10_000 });
    expect(existsSync(MARKER), `${label(shape)} ran ${JSON.stringify(payload)} under bash`).toBe(false);
    expect(bash.stdout.trim()).toBe(expectedOutput(shape, payload));
  });
});

describe("through another agent's output ({a}, i.e. from a model)", () => {
  const payloadFile = join(dir, 'payload');
  const throughOutput = SHAPES.filter((s) => s.refused || s.command.includes('{prompt}'));

  it.each(throughOutput)('$command (shell: $shell): the session printing the payload cannot make the next one run it', async (shape) => {
    for (const [name, payload] of PAYLOADS) {
      if (payload.includes('\0')) continue; // a NUL never reaches the next prompt as text a shell sees: covered above
      writeFileSync(payloadFile, payload);
      const source = [
        'agent source:',
        `  command: ${literal(`cat ${payloadFile}`)}`,
        agentFlow(shape),
        'let a = session: source',
        '  prompt: "speak"',
        'session: sink',
        '  prompt: "{a}"',
        '',
      ].join('\n');
      const plan = planOf(source, { allowInvalid: shape.refused });
      const { result, events } = await runPlan(plan, { registry: createRuntimeRegistry({ killGraceMs: 200 }) });
      expect(existsSync(MARKER), `${label(shape)} ran the ${name} payload from {a}`).toBe(false);
      if (shape.refused) {
        expect(result.error?.code, `${label(shape)} with ${name}`).toBe('USER_INVALID_CONFIG');
      } else {
        expect(result.status, `${label(shape)} with ${name}: ${JSON.stringify(result.error)}`).toBe('completed');
        const sinkEnd = ofType(events, 'attemptSucceeded').at(-1);
        expect(sinkEnd?.trace?.output).toBe(expectedOutput(shape, payload.trim()));
      }
    }
  });
});
