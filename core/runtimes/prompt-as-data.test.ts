import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ofType, planOf, runPlan } from '../engine/testing.js';
import { checkFlow } from '../flow/check/check.js';
import type { AgentSpec } from '../flow/plan/plan.js';
import { CLAUDE_ARGV_ECHO, CODEX_ARGV_ECHO, writeCliStandIn } from '../testing/cli-stand-in.js';
import { ACCEPTED_SHAPES, flowString, PAYLOADS, REFUSED_SHAPES, STAND_IN, type Shape } from '../testing/prompt-shapes.js';
import { skipTitle } from '../testing/skip.js';
import { tempDirs } from '../testing/temp-dirs.js';
import { shellQuote, splitCommandTemplate, commandValues } from './command-line.js';
import { runProcess } from './process/process.js';
import { createRuntimeRegistry } from './registry.js';
import type { AttemptRequest, AttemptResult } from './runtime.js';

/**
 * Prompts are data, whatever the program: every shape of `core/testing/prompt-shapes.ts` goes
 * through `check`. Each one it accepts is then run by the real runtime (a real subprocess, a real
 * /bin/sh for `shell: true`) with every payload as the prompt, and the marker file the payload
 * tries to create never appears, while the value arrives verbatim. Each one it refuses is refused
 * by the runtime too, before anything starts; and, run with the value put in unchecked, the
 * refused shapes do run the payload (the control: the shapes are real attacks, the marker a real
 * witness).
 */

const dir = tempDirs()('hw-prompt-data-');
writeFileSync(join(dir, 'bundle.txt'), 'line\n');
if (missingProgram(['tar']) === undefined) execFileSync('tar', ['-cf', 'bundle.tar', 'bundle.txt'], { cwd: dir });
const registry = createRuntimeRegistry({ killGraceMs: 200 });
const standIns = { 'claude-code': writeCliStandIn(dir, 'claude', CLAUDE_ARGV_ECHO), 'codex-cli': writeCliStandIn(dir, 'codex', CODEX_ARGV_ECHO) };
let markers = 0;
const nextMarker = (): string => join(dir, `marker-${++markers}`);

function commandOf(shape: Shape): string {
  const runtime = shape.runtime ?? 'command';
  return runtime === 'command' ? shape.command : shape.command.replace(STAND_IN, standIns[runtime]);
}

function flowOf(shape: Shape): string {
  return [
    'agent sink:',
    `  runtime: "${shape.runtime ?? 'command'}"`,
    `  command: ${flowString(commandOf(shape))}`,
    `  shell: ${String(shape.shell ?? false)}`,
    'session: sink',
    '  prompt: "x"',
    '',
  ].join('\n');
}

function agentOf(shape: Shape): AgentSpec {
  const agent = planOf(flowOf(shape), { allowInvalid: true }).agents.get('sink');
  if (agent === undefined) throw new Error(`no agent for ${shape.name}`);
  return agent;
}

const run = (agent: AgentSpec, prompt: string): Promise<AttemptResult> => {
  const request: AttemptRequest = {
    runId: 'run_data',
    taskId: '1:0',
    ordinal: 0,
    attempt: 1,
    prompt,
    agent,
    simulate: null,
    timeoutMs: 20_000,
    context: {},
    cwd: dir,
  };
  return registry.forAgent(agent).execute(request, new AbortController().signal);
};

function missingProgram(names: readonly string[]): string | undefined {
  const folders = (process.env.PATH ?? '').split(delimiter);
  const runnable = (path: string): boolean => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return names.find((name) => !folders.some((folder) => runnable(join(folder, name))));
}

function controlSkip(shape: Shape): string | null {
  if (shape.root && process.getuid?.() !== 0) return `${shape.command.split(' ')[0] ?? ''} asks a password of anyone but root`;
  const missing = missingProgram(shape.needs ?? []);
  return missing === undefined ? null : `no ${missing} on PATH`;
}

/** The command run with the value put in as the template says, and nothing judged: what a deny-list let through. */
async function runUnchecked(shape: Shape, prompt: string): Promise<void> {
  const template = agentOf(shape).command;
  if (template === null) throw new Error('no command');
  const argv = shape.shell
    ? ['/bin/sh', '-c', template.parts.map((part) => (part.kind === 'text' ? part.text : shellQuote(prompt))).join('')]
    : splitCommandTemplate(template, commandValues(prompt, null));
  await runProcess({ argv, runtimeName: 'unchecked', cwd: dir, timeoutMs: 20_000, env: { SHELL: '/bin/sh' } });
}

describe('the shapes check accepts: run with every payload, nothing runs and the value arrives as data', () => {
  it('are exactly the allow-list and the environment forms', () => {
    const accepted = [...REFUSED_SHAPES, ...ACCEPTED_SHAPES].filter((shape) => checkFlow(flowOf(shape), 'shape.prose').ok);
    expect(accepted.map((shape) => shape.name)).toEqual(ACCEPTED_SHAPES.map((shape) => shape.name));
  });

  describe.each(ACCEPTED_SHAPES)('$name', (shape) => {
    const agent = agentOf(shape);

    // Each payload has its own marker, so they run side by side: the time is the children's start-up.
    it.concurrent.for(PAYLOADS)('with %s', async ([, payloadOf], { expect }) => {
      const marker = nextMarker();
      const payload = payloadOf(marker);
      const result = await run(agent, payload);
      expect(existsSync(marker), `${shape.name} ran ${JSON.stringify(payload)}`).toBe(false);
      // No environment string and no argument can hold a NUL: the attempt is refused before it
      // starts, saying so, whichever way the prompt would have gone.
      if (payload.includes('\0')) {
        expect(result.kind === 'failed' && result.error.code).toBe('USER_INVALID_PROMPT');
        return;
      }
      if (result.kind !== 'succeeded') throw new Error(`${shape.name}: ${JSON.stringify(result)}`);
      if (shape.runtime === undefined) {
        expect(result.output).toBe((shape.command.includes('x{prompt}y') ? `x${payload}y` : payload).trim());
      } else {
        // The stand-in CLI answers with its own arguments: the prompt is the last one, after `--`.
        expect((JSON.parse(result.output) as string[]).slice(-2)).toEqual(['--', payload]);
      }
    });
  });
});

describe('the shapes check refuses: refused again by the runtime, and real attacks when unchecked', () => {
  describe.each(REFUSED_SHAPES)('$name', (shape) => {
    it('check reports each placeholder, or the command, with the safe form', () => {
      const result = checkFlow(flowOf(shape), 'shape.prose');
      expect(result.ok).toBe(false);
      expect(result.diagnostics.map((d) => d.message)).toEqual([
        expect.stringMatching(/cannot be used here: .*HIVEWATCH_PROMPT|names the (claude|codex) executable alone/),
      ]);
    });

    it('the runtime refuses it before anything starts, whatever the payload', async () => {
      for (const [, payloadOf] of PAYLOADS) {
        const marker = nextMarker();
        const result = await run(agentOf(shape), payloadOf(marker));
        expect(result.kind === 'failed' && result.error.code).toBe('USER_INVALID_CONFIG');
        expect(result.kind === 'failed' && result.process).toBeUndefined();
        expect(existsSync(marker)).toBe(false);
      }
    });

    const exploit = shape.exploit;
    if (exploit === undefined) return;
    const skip = controlSkip(shape);
    it.skipIf(skip !== null)(skipTitle('control: unchecked, the same template runs the payload', skip), async () => {
      const marker = nextMarker();
      await runUnchecked(shape, exploit(marker));
      expect(existsSync(marker), `${shape.name} did not run ${JSON.stringify(exploit(marker))} even unchecked`).toBe(true);
    });
  });
});

describe("through the engine, a prompt from another agent's output", () => {
  const payloadFile = join(dir, 'payload');
  const source = (shape: Shape): string =>
    [
      `agent source:\n  command: ${flowString(`cat ${payloadFile}`)}`,
      flowOf(shape).replace(/session: sink\n {2}prompt: "x"\n$/, ''),
      'let a = session: source',
      '  prompt: "speak"',
      'session: sink',
      '  prompt: "{a}"',
      '',
    ].join('\n');

  it.each(ACCEPTED_SHAPES.filter((shape) => shape.runtime === undefined))('$name: the next session gets it as data', async (shape) => {
    const marker = nextMarker();
    writeFileSync(payloadFile, `"; touch ${marker}; $(touch ${marker}) \`touch ${marker}\``);
    const { result, events } = await runPlan(planOf(source(shape)), { registry });
    expect(existsSync(marker)).toBe(false);
    expect(result.status).toBe('completed');
    expect(ofType(events, 'attemptSucceeded').at(-1)?.trace?.output).toContain(`touch ${marker}`);
  });

  // Every refused shape meets the runtime's refusal above; here a few meet it through the engine.
  const throughEngine = ['perl -e', 'a shell: a pipe to sh', 'node -e with the value after the script'].map((name) => {
    const shape = REFUSED_SHAPES.find((s) => s.name === name);
    if (shape === undefined) throw new Error(`no refused shape ${name}`);
    return shape;
  });
  it.each(throughEngine)('$name: a flow that skipped check fails at the start', async (shape) => {
    const marker = nextMarker();
    writeFileSync(payloadFile, (shape.exploit as (m: string) => string)(marker));
    const { result } = await runPlan(planOf(source(shape), { allowInvalid: true }), { registry });
    expect(existsSync(marker)).toBe(false);
    expect(result.error?.code).toBe('USER_INVALID_CONFIG');
  });
});
