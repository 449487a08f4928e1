import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { tempDirs } from '../testing/temp-dirs.js';

/**
 * The command line's sharp edges, each one clear line: a flow path that names no regular file
 * (a FIFO used to hang `check` forever, /dev/zero to grow it by ~200 MB/s), a busy `--port` (a
 * stack trace), and a prompt no process can be given (a NUL: "could not start", as a failed
 * connection; over 128 KiB: silently left out, the agent got an empty prompt).
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');
const temp = tempDirs();

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function hivewatch(args: string[], dir: string): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, HIVEWATCH_DB: join(dir, 'hivewatch.db'), XDG_DATA_HOME: join(dir, 'data') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const eventsOf = (stdout: string): HivewatchEvent[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as HivewatchEvent);

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

function listenOn(target: string | number): Promise<Server> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof target === 'string') server.listen(target, () => resolve(server));
    else server.listen(target, '127.0.0.1', () => resolve(server));
  });
}

describe('a flow path that names no regular file of bounded size', () => {
  it('check refuses a FIFO, a device, a socket and a file over 2 MiB at once, each in one line (exit 2)', async () => {
    const dir = temp('hw-sharp-check-');
    const fifo = join(dir, 'pipe.prose');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const socket = join(dir, 'socket.prose');
    await listenOn(socket);
    const big = join(dir, 'big.prose');
    writeFileSync(big, `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const cases: [string, string][] = [
      [fifo, 'it is a FIFO (named pipe), not a regular file'],
      ['/dev/zero', 'it is a character device, not a regular file'],
      [socket, 'it is a socket, not a regular file'],
      [big, 'it is larger than 2 MiB, the most this file may have'],
    ];
    for (const [file, reason] of cases) {
      const result = await hivewatch(['check', file], dir);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`${file}:1:1: cannot read the flow: ${reason}\n1 error(s)\n`);
    }
  });

  it('run of a FIFO is refused the same way, on record as a flow that does not check', async () => {
    const dir = temp('hw-sharp-run-');
    const fifo = join(dir, 'pipe.prose');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const result = await hivewatch(['run', fifo, '--json'], dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${fifo}:1:1: cannot read the flow: it is a FIFO (named pipe), not a regular file\n`);
    expect(eventsOf(result.stdout).at(-1)).toMatchObject({ type: 'runFailed', error: { code: 'USER_INVALID_FLOW' } });
  });
});

describe('serve --port on a busy port', () => {
  it('prints one line with the fix and exits 1, no stack trace', async () => {
    const dir = temp('hw-sharp-port-');
    const taken = await listenOn(0);
    const port = (taken.address() as { port: number }).port;
    const result = await hivewatch(['serve', '--port', String(port), '--otel-port', 'off'], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `hivewatch: port ${port} on 127.0.0.1 is in use by another program (another Hivewatch?); stop it, or choose another with --port N (--port 0 takes a free one)\n`,
    );
  });
});

/** A flow whose first session prints what `first.sh` prints and whose second is given that as its prompt. */
function handOnFlow(dir: string, firstOutput: string): string {
  const agents = join(dir, 'agents');
  mkdirSync(agents);
  writeFileSync(join(agents, 'first.sh'), firstOutput);
  writeFileSync(join(agents, 'second.sh'), `touch ${join(dir, 'second-started')}\nprintf '%s' "$HIVEWATCH_PROMPT"\n`);
  const flow = join(dir, 'hand-on.prose');
  writeFileSync(
    flow,
    [
      'agent first:',
      '  runtime: "command"',
      `  command: "/bin/sh ${join(agents, 'first.sh')}"`,
      'agent second:',
      '  runtime: "command"',
      `  command: "/bin/sh ${join(agents, 'second.sh')}"`,
      'let a = session: first',
      '  prompt: "start"',
      'session: second',
      '  prompt: "{a}"',
      '',
    ].join('\n'),
  );
  return flow;
}

describe('a prompt no process can be given', () => {
  it('a NUL handed on from an earlier output fails the session as USER_INVALID_PROMPT, saying so, and starts nothing', async () => {
    const dir = temp('hw-sharp-nul-');
    const flow = handOnFlow(dir, "printf 'before\\000after'\n");
    const result = await hivewatch(['run', flow, '--json'], dir);
    expect(result.code, result.stderr).toBe(1);
    const failed = eventsOf(result.stdout).at(-1);
    expect(failed).toMatchObject({ type: 'runFailed', error: { code: 'USER_INVALID_PROMPT', origin: 'user' } });
    expect((failed as { error: { message: string } }).error.message).toMatch(
      /^agent "second" \(runtime command\): the prompt holds a NUL character \(at character 6\)/,
    );
    expect(existsSync(join(dir, 'second-started'))).toBe(false);
  });

  it('a prompt over 128 KiB fails the session before it starts, rather than giving the agent an empty prompt', async () => {
    const dir = temp('hw-sharp-big-');
    const flow = handOnFlow(dir, "head -c 204800 /dev/zero | tr '\\000' x\n");
    const result = await hivewatch(['run', flow, '--json'], dir);
    expect(result.code, result.stderr).toBe(1);
    const failed = eventsOf(result.stdout).at(-1);
    expect(failed).toMatchObject({ type: 'runFailed', error: { code: 'USER_INVALID_PROMPT' } });
    expect((failed as { error: { message: string } }).error.message).toBe(
      'agent "second" (runtime command): the prompt is 204800 bytes; an agent is given its prompt as HIVEWATCH_PROMPT or an argument, and Linux allows at most 131054 bytes there (128 KiB per string); pass less into it',
    );
    expect(existsSync(join(dir, 'second-started'))).toBe(false);
  });
});
